# SPDX-License-Identifier: Apache-2.0
# make docs-test: every relative link (and #anchor) in the project's Markdown resolves, and
# plugin/README.md names every .c/.h file of plugin/ (tests/docs/plugin_readme.sh).
.PHONY: docs-test
docs-test:
	python3 tests/docs/links.py .
	bash tests/docs/plugin_readme.sh
test: docs-test
