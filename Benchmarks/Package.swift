// swift-tools-version: 6.1
//
// Strata's benchmarks: each executable runs a workload of ../shared/design/performance.md through
// Strata and through the raw engine in the same process, alternating, and prints medians and ratios.
// Run in release mode only:  swift run -c release --package-path Benchmarks <Name>Benchmarks

import Foundation
import PackageDescription

/// The root package's identity: the name of its folder (`main`, a worktree, a CI checkout).
let rootPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            path: "Sources/BenchmarkSupport",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Backends add one executable target each below, named <Backend>Benchmarks,
        // in Sources/<Backend>Benchmarks.
        .executableTarget(
            name: "LMDBBenchmarks",
            dependencies: ["BenchmarkSupport", .product(name: "StrataLMDB", package: rootPackage)],
            path: "Sources/LMDBBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
