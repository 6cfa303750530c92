# mk/first_hour.mk - the first hour of a user, as the README tells it.
#
#   make test-first-hour   tests/first_hour/run.sh: in $(BUILD)/first-hour, from a clean copy of
#                          the tree (the files git tracks), the README's build, install and Python commands and
#                          the build lines of two examples' first comments, each run as written;
#                          one ok line per step (FIRST_HOUR_PYTHON2=<python>: the second Python
#                          the module is rebuilt for; found on PATH when unset)

.PHONY: test-first-hour

test-first-hour:
	@tests/first_hour/run.sh $(BUILD)/first-hour
