import Foundation
import StrataTestSupport
import Testing

/// README.md's Swift samples are compiled: each must appear, character for character, in one file
/// of `Examples/ReadmeSamples`, which the package builds (`readme-strata-sample`,
/// `readme-strata-data-sample`). A sample edited in the README alone, or in the example alone,
/// fails here; change both together.
@Suite struct ReadmeSampleTests {
    static let readme = Repository.root.appendingPathComponent("README.md")
    static let samplesDirectory = Repository.root.appendingPathComponent("Examples/ReadmeSamples")

    /// The body of every fenced block of the README marked `swift`, in order.
    static func swiftBlocks(of markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if var lines = current {
                if line == "```" {
                    blocks.append(lines.map { $0 + "\n" }.joined())
                    current = nil
                } else {
                    lines.append(line)
                    current = lines
                }
            } else if line == "```swift" {
                current = []
            }
        }
        return blocks
    }

    /// The text of every Swift file under `Examples/ReadmeSamples`, by path.
    static func sampleSources() throws -> [String: String] {
        let files = FileManager.default.enumerator(at: samplesDirectory, includingPropertiesForKeys: nil)
        var sources: [String: String] = [:]
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            sources[file.path] = try String(contentsOf: file, encoding: .utf8)
        }
        return sources
    }

    @Test func theReadmeHasSwiftSamples() throws {
        let blocks = Self.swiftBlocks(of: try String(contentsOf: Self.readme, encoding: .utf8))
        #expect(blocks.count >= 3, "README.md shows \(blocks.count) Swift samples")
    }

    @Test func everyReadmeSampleIsInACompiledExample() throws {
        let sources = try Self.sampleSources()
        #expect(sources.count >= 2, "Examples/ReadmeSamples holds \(sources.count) Swift files")
        for (index, block) in Self.swiftBlocks(of: try String(contentsOf: Self.readme, encoding: .utf8)).enumerated() {
            #expect(
                sources.values.contains { $0.contains(block) },
                "README.md's Swift sample \(index + 1) is in no file of Examples/ReadmeSamples:\n\(block)")
        }
    }

    @Test func aChangedSampleIsNotFound() throws {
        let sources = try Self.sampleSources()
        let block = try #require(Self.swiftBlocks(of: try String(contentsOf: Self.readme, encoding: .utf8)).first)
        let changed = block.replacingOccurrences(of: "\n", with: "\n ")
        #expect(!sources.values.contains { $0.contains(changed) })
    }
}
