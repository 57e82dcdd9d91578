// swift-tools-version: 6.1
//
// Strata's benchmarks: each executable runs a workload of ../shared/design/performance.md through
// Strata and through the raw engine in the same process, alternating, and prints medians and ratios.
// Run in release mode only:  swift run -c release --package-path Benchmarks <Name>Benchmarks

import Foundation
import PackageDescription

/// The root package's identity: the name of the folder holding it (`main` on the main checkout).
let root = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init)?.lowercased() ?? "main"

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        // Only here, as a yardstick: what users pick instead of Strata (ObjectGraphBenchmarks).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Only here, as a yardstick: what a server developer picks for PostgreSQL (PostgresBenchmarks).
        .package(url: "https://github.com/vapor/fluent-kit.git", from: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.14.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.3"),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            path: "Sources/BenchmarkSupport",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "ObjectGraphWorkload",
            dependencies: ["BenchmarkSupport", .product(name: "StrataData", package: root)],
            path: "Sources/ObjectGraphWorkload",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Backends add one executable target each below, named <Backend>Benchmarks,
        // in Sources/<Backend>Benchmarks.
        .target(
            name: "RawSQLiteSupport",
            dependencies: [.product(name: "StrataSQLite", package: root)],
            path: "Sources/RawSQLiteSupport",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "SQLiteBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "RawSQLiteSupport",
                .product(name: "StrataSQLite", package: root),
                .product(name: "StrataCore", package: root),
            ],
            path: "Sources/SQLiteBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "PostgresBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "ObjectGraphWorkload",
                .product(name: "Strata", package: root),
                .product(name: "StrataPostgres", package: root),
                .product(name: "StrataCore", package: root),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/PostgresBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "SortBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "StrataSQLite", package: root),
                .product(name: "StrataLMDB", package: root),
                .product(name: "StrataCore", package: root),
            ],
            path: "Sources/SortBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "LMDBBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "StrataLMDB", package: root),
                .product(name: "StrataCore", package: root),
            ],
            path: "Sources/LMDBBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "XMLBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "StrataXML", package: root),
                .product(name: "StrataCore", package: root),
            ],
            path: "Sources/XMLBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "MigrationBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "StrataSQLite", package: root),
                .product(name: "StrataMigrations", package: root),
                .product(name: "StrataCore", package: root),
            ],
            path: "Sources/MigrationBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "StallBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Strata", package: root),
                .product(name: "StrataSQLite", package: root),
            ],
            path: "Sources/StallBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: ["BenchmarkSupport", .product(name: "Strata", package: root)],
            path: "Sources/EngineBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "LiveQueryBenchmarks",
            dependencies: ["BenchmarkSupport", .product(name: "Strata", package: root)],
            path: "Sources/LiveQueryBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "PendingBenchmarks",
            dependencies: ["BenchmarkSupport", .product(name: "Strata", package: root)],
            path: "Sources/PendingBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "UserPathBenchmarks",
            dependencies: ["BenchmarkSupport", .product(name: "Strata", package: root)],
            path: "Sources/UserPathBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "TransferBenchmarks",
            dependencies: ["BenchmarkSupport", .product(name: "Strata", package: root)],
            path: "Sources/TransferBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "HistoryBenchmarks",
            dependencies: ["BenchmarkSupport", .product(name: "Strata", package: root)],
            path: "Sources/HistoryBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // glibc's malloc statistics, for the bytes an unsaved object takes.
        .target(name: "MallocStats", path: "Sources/MallocStats"),
        .executableTarget(
            name: "ObjectGraphBenchmarks",
            dependencies: [
                "RawSQLiteSupport",
                "BenchmarkSupport",
                "ObjectGraphWorkload",
                "MallocStats",
                .product(name: "Strata", package: root),
                .product(name: "StrataSQLite", package: root),
                .product(name: "StrataData", package: root),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/ObjectGraphBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "StrataDataBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "ObjectGraphWorkload",
                "MallocStats",
                .product(name: "Strata", package: root),
                .product(name: "StrataData", package: root),
            ],
            path: "Sources/StrataDataBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "SavePathBenchmarks",
            dependencies: ["BenchmarkSupport", .product(name: "Strata", package: root)],
            path: "Sources/SavePathBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "ContainerBenchmarks",
            dependencies: ["BenchmarkSupport", .product(name: "Strata", package: root)],
            path: "Sources/ContainerBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(name: "CScaleSupport", path: "Sources/CScaleSupport"),
        .executableTarget(
            name: "ScaleBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "CScaleSupport",
                .product(name: "Strata", package: root),
                .product(name: "StrataSQLite", package: root),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/ScaleBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
