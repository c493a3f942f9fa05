"""The package as a newcomer gets it: a plain virtual environment (no system site-packages), then
`pip install ./Clients/python` (pyzmq comes from the package index), then a script run by that
environment's Python pings both services, blocking and asyncio; the console scripts are installed
in it; mypy accepts a typed program against the installed package (PEP 561, py.typed)."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import APP, CLIENT_DIR

PROGRAM = textwrap.dedent("""
    import asyncio, json, sys
    import lightbox
    from lightbox.aio import AsyncServiceDirectory

    data, auth, picker = sys.argv[1:4]
    directory = lightbox.ServiceDirectory(data, auth, picker)
    pings = []
    with directory.picker_as_owner() as connection:
        pings.append(connection.ping())
    with directory.auth_as_owner() as connection:
        pings.append(connection.ping())

    async def main() -> list:
        directory = AsyncServiceDirectory(data, auth, picker)
        async with directory.picker_as_app(sys.argv[4]) as connection:
            return [await connection.ping()]

    pings += asyncio.run(main())
    print(json.dumps({"file": lightbox.__file__, "prefix": sys.prefix, "pings": pings}))
""")

TYPED_PROGRAM = textwrap.dedent("""
    import lightbox
    from lightbox.aio import AsyncPhotoLibrary

    def status(library: lightbox.PhotoLibrary) -> str:
        return library.authorization_status(lightbox.AccessLevel.READ_WRITE)

    async def assets(library: AsyncPhotoLibrary) -> int:
        page, total = await library.query(media_type="image")
        return len(page) + total
""")


def run(*arguments, timeout=300, **options):
    done = subprocess.run(arguments, capture_output=True, text=True, timeout=timeout, **options)
    assert done.returncode == 0, f"{arguments}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    """A plain venv with ./Clients/python installed into it (not editable)."""
    root = tmp_path_factory.mktemp("venv")
    venv = root / "env"
    run(sys.executable, "-m", "venv", str(venv))
    python = str(venv / "bin" / "python")
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    # Build from a copy, so the build leaves nothing in the working tree.
    source = root / "src"
    shutil.copytree(CLIENT_DIR, source, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__",
                                                                     ".mypy_cache", ".pytest_cache"))
    run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(source), env=environment, timeout=600)
    return venv, python, environment


def test_fresh_venv_installs_the_package_and_reaches_both_services(services, fresh_venv, tmp_path):
    venv, python, environment = fresh_venv
    # Nothing from outside the venv: no system site-packages.
    outside = run(python, "-c", "import sys; print(sys.flags.no_site, any('site-packages' in p and not p.startswith(sys.prefix) for p in sys.path))",
                  env=environment)
    assert outside.stdout.split() == ["0", "False"]

    program = tmp_path / "ping.py"
    program.write_text(PROGRAM)
    done = run(python, str(program), services.data, services.auth_endpoint, services.picker_endpoint, APP,
               env=environment, cwd=str(tmp_path), timeout=60)
    report = json.loads(done.stdout)
    assert report["file"].startswith(str(venv)) and report["prefix"] == str(venv)
    assert report["pings"] == [{"service": "picker", "principal": "owner"}, {"service": "auth", "principal": "owner"},
                               {"service": "picker", "principal": f"app:{APP}"}]

    for script in ("lightbox-pick", "lightbox-request-access", "lightbox-expand-limited"):
        assert "--app" in run(str(venv / "bin" / script), "--help", env=environment, timeout=60).stdout
    refused = subprocess.run([str(venv / "bin" / "lightbox-expand-limited"), "--app", APP, *services.endpoint_arguments()],
                             capture_output=True, text=True, timeout=60, env=environment)
    assert refused.returncode == 1 and "notLimited" in refused.stderr, refused.stderr


def test_installed_package_is_typed(fresh_venv, tmp_path):
    pytest.importorskip("mypy")
    venv, python, environment = fresh_venv
    program = tmp_path / "typed.py"
    program.write_text(TYPED_PROGRAM)
    run(sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-executable", python, str(program),
        env=environment, cwd=str(tmp_path), timeout=300)
    wrong = tmp_path / "wrong.py"
    wrong.write_text("import lightbox\nx: int = lightbox.PhotoLibrary(None).authorization_status()\n")
    checked = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--python-executable", python, str(wrong)],
                             capture_output=True, text=True, timeout=300, env=environment, cwd=str(tmp_path))
    assert checked.returncode == 1 and "incompatible types in assignment" in checked.stdout.lower(), checked.stdout
