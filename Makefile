# The two commands of the README, plus helpers. Each installs missing system packages first.

.PHONY: deps demo test test-tsan build clean-demo

deps:
	@./scripts/install-deps.sh

## Run the demo on the default embedded store (SQLite, ./strata-demo.sqlite).
demo: deps
	swift run -c release strata demo

## Run every test: the engine, the conformance kit on every backend, the tool.
test: deps
	swift test

## The concurrency and store tests under ThreadSanitizer.
test-tsan: deps
	swift test --sanitize=thread

build: deps
	swift build
