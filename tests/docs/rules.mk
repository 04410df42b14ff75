# SPDX-License-Identifier: Apache-2.0
# make docs-test: every relative link (and #anchor) in the project's Markdown resolves.
.PHONY: docs-test
docs-test:
	python3 tests/docs/links.py .
test: docs-test
