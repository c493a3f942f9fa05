"""lightbox-pick writes only under safe names, whatever name the service suggests."""

import os

import pytest

from lightbox.cli import safe_file_name, unique_path


@pytest.mark.parametrize("name, expected", [
    ("harbour.jpg", "harbour.jpg"),
    ("/.jpg", "jpg"),
    ("/", "item"),
    ("", "item"),
    ("../../x.jpg", "x.jpg"),
    ("..\\..\\evil.png", "evil.png"),
    (".bashrc", "bashrc"),
    ("a\x00b\x01c\nd.jpg", "abcd.jpg"),
    ("photo\u202egpj.exe", "photogpj.exe"),
    ("Fjord – sommer.heic", "Fjord – sommer.heic"),
])
def test_names_are_reduced_to_a_safe_base_name(name, expected):
    assert safe_file_name(name) == expected


def test_long_names_keep_their_extension_within_255_bytes():
    safe = safe_file_name("é" * 300 + ".jpg")
    assert len(safe.encode("utf-8")) <= 255
    assert safe.endswith(".jpg") and set(safe[:-4]) == {"é"}


def test_unique_path_stays_in_the_folder_and_overwrites_nothing(tmp_path):
    (tmp_path / "x.jpg").write_bytes(b"already here")
    taken = set()
    first = unique_path(str(tmp_path), "../../x.jpg", taken)
    second = unique_path(str(tmp_path), "/", taken)
    assert first == os.path.join(str(tmp_path), "x-2.jpg")
    assert second == os.path.join(str(tmp_path), "item")
    assert os.path.dirname(os.path.realpath(first)) == os.path.realpath(str(tmp_path))
