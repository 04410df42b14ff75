# SPDX-License-Identifier: Apache-2.0
# make docs-test: every relative link (and #anchor) in the project's Markdown resolves, and
# plugin/README.md names every .c/.h file of plugin/ (tests/docs/plugin_readme.sh); the
# README's newcomer path runs and the reference tables match the code (readme_path.sh);
# every '(covered: FILE "DESC")' a skip in tests/ names is a check of that file (covered.sh);
# no cycle between the files of plugin/, pkg/, netconf/ and no basename twice (layering.sh);
# every docs/*.svg well-formed, shown by a page, its labels the strings the code prints (svg.py).
.PHONY: docs-test
docs-test: all
	python3 tests/docs/links.py .
	python3 tests/docs/svg.py .
	bash tests/docs/plugin_readme.sh
	bash tests/docs/covered.sh
	RQ_BUILD=$(abspath $(B)) bash tests/docs/readme_path.sh
	RQ_BUILD=$(abspath $(B)) bash tests/docs/layering.sh
LANE_EARLY += docs-test
