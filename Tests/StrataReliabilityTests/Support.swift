import Foundation
import StrataCore
import StrataTestSupport

/// A fresh directory, unique per call, open to its owner alone.
func temporaryDirectory() -> String {
    TemporaryDirectory(permissions: 0o700).path
}

/// A URL for a new store of `scheme` in a fresh directory.
func temporaryStoreURL(_ scheme: String) -> StoreURL {
    let name = ["sqlite": "store.sqlite", "lmdb": "store-lmdb", "xml": "store.xml"][scheme] ?? "store"
    return StoreURL(scheme: scheme, location: temporaryDirectory() + "/" + name)
}

/// Starts a `strata-torture` child whose standard output is read line by line.
func tortureChild(_ arguments: [String]) throws -> LineReadingProgram {
    try LineReadingProgram(builtExecutable("strata-torture"), arguments)
}

/// Runs `strata-torture` to the end and returns its output lines and exit status.
func runTorture(_ arguments: [String]) throws -> (status: Int32, lines: [String]) {
    let child = try tortureChild(arguments)
    child.finish()
    return (child.process.terminationStatus, child.lines)
}

/// Prints a line the CI log collects (`reliability: ...`).
func reportCount(_ line: String) {
    print("reliability: " + line)
}
