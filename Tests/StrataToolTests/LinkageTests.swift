import Foundation
import Strata
import StrataTestSupport
import Testing

/// An application that uses only StrataEngine and StrataSQLite (Examples/SQLiteOnly) must load
/// libsqlite3 and neither liblmdb nor libxml2: the engine knows no backend. These tests fail when
/// the engine or the SQLite backend comes to depend on another backend or on the umbrella
/// `Strata`, which would make every such application need the C libraries of backends it never
/// opens.
///
/// The libraries are listed with `ldd` (every library the loader maps, dependencies of
/// dependencies too), else `readelf -d` or `objdump -p` (the binary's own NEEDED entries), else
/// `otool -L` on macOS; without any of them the linkage test is skipped and says why.
@Suite struct LinkageTests {
    @Test(
        .enabled(
            if: LibraryLister.available != nil,
            "lists a binary's libraries with ldd, readelf, objdump or otool, and none is on the PATH"))
    func anEngineAndSQLiteApplicationNeedsNoOtherBackendsLibrary() throws {
        let lister = try #require(LibraryLister.available)
        let libraries = try lister.libraries(of: try builtExecutable("strata-sqlite-only-example"))
        #expect(libraries.contains { $0.hasPrefix("libsqlite3.") }, "libsqlite3 is missing from \(libraries.sorted())")
        #expect(!libraries.contains { $0.hasPrefix("liblmdb.") }, "liblmdb is among \(libraries.sorted())")
        #expect(!libraries.contains { $0.hasPrefix("libxml2.") }, "libxml2 is among \(libraries.sorted())")
    }

    @Test func theSQLiteOnlyExampleSavesAndFetchesANote() throws {
        let run = try runProgram(try builtExecutable("strata-sqlite-only-example"), [])
        #expect(run.status == 0, "the example failed: \(run.errors)")
        #expect(run.output == "sqlite-only example: saved and fetched a Note (1 in the store)\n")
    }
}

/// A program that lists the shared libraries a binary needs, and how to read its output.
private struct LibraryLister {
    var program: URL
    var arguments: [String]

    /// The first lister on the PATH: `ldd`, `readelf -d`, `objdump -p`, `otool -L`.
    static let available: LibraryLister? = {
        for (name, arguments) in [("ldd", []), ("readelf", ["-d"]), ("objdump", ["-p"]), ("otool", ["-L"])] {
            if let program = which(name) { return LibraryLister(program: program, arguments: arguments) }
        }
        return nil
    }()

    /// The file names of the libraries `binary` needs (`libsqlite3.so.0`, `libxml2.2.dylib`).
    ///
    /// Every listed word whose last path component starts with `lib` and names a shared library
    /// counts: ldd's `libsqlite3.so.0 => /lib/.../libsqlite3.so.0`, readelf's
    /// `Shared library: [libsqlite3.so.0]`, objdump's `NEEDED libsqlite3.so.0`, otool's paths.
    func libraries(of binary: URL) throws -> Set<String> {
        let run = try runProgram(program, arguments + [binary.path])
        guard run.status == 0 else {
            throw StrataError(
                .io, "\(program.lastPathComponent) failed on \(binary.path): \(run.errors)",
                location: ["file": binary.path])
        }
        let words = run.output.split(whereSeparator: { $0.isWhitespace || $0 == "[" || $0 == "]" })
        return Set(
            words.compactMap { word -> String? in
                let name = String(word.split(separator: "/").last ?? word)
                return name.hasPrefix("lib") && (name.contains(".so") || name.hasSuffix(".dylib")) ? name : nil
            })
    }
}
