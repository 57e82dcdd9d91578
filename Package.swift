// swift-tools-version: 6.1
//
// Strata: an object-graph store engine for Swift on Linux and macOS.
// Layers (see docs/Architecture.md; each module's own file, e.g. Sources/StrataCore/StrataCore.swift,
// says what it may import):
//   StrataCore (the vocabulary, with the migration vocabulary backends adopt; no Strata import)
//   <- backends (StrataCore and their C module only), StrataMigrations, StrataTransfer,
//      StrataConformance (each StrataCore only)
//   <- StrataEngine (StrataCore and StrataMigrations, no backend)
//   <- Strata (umbrella: the engine and every built-in backend) <- strata (CLI).

import CompilerPluginSupport
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataEngine", targets: ["StrataEngine"]),
        .library(name: "StrataCore", targets: ["StrataCore"]),
        .library(name: "StrataConformance", targets: ["StrataConformance"]),
        .library(name: "StrataInMemory", targets: ["StrataInMemory"]),
        .library(name: "StrataSQLite", targets: ["StrataSQLite"]),
        .library(name: "StrataXML", targets: ["StrataXML"]),
        .executable(name: "strata", targets: ["strata"]),
        .library(name: "StrataLMDB", targets: ["StrataLMDB"]),
        .library(name: "StrataMigrations", targets: ["StrataMigrations"]),
        .library(name: "StrataTransfer", targets: ["StrataTransfer"]),
        .library(name: "StrataData", targets: ["StrataData"]),
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // `swift package generate-documentation` (make docs): builds the DocC catalogs, no code of it links in.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // MARK: Vocabulary
        .target(
            name: "StrataCore",
            dependencies: ["CStrataFiles", .product(name: "Logging", package: "swift-log")],
            path: "Sources/StrataCore",
            swiftSettings: strictSettings
        ),
        // Calls the C library has and Swift's modules do not declare (an atomic swap of two paths).
        .systemLibrary(name: "CStrataFiles", path: "Sources/CStrataFiles"),

        // MARK: Migrations (planning, inference, stages, the streaming executor)
        .target(
            name: "StrataMigrations",
            dependencies: ["StrataCore", .product(name: "Logging", package: "swift-log")],
            path: "Migrations/StrataMigrations",
            swiftSettings: strictSettings
        ),

        // MARK: Backends (one folder each, with its C module beside it)
        .target(
            name: "StrataInMemory",
            dependencies: ["StrataCore"],
            path: "Backends/InMemory/StrataInMemory",
            swiftSettings: strictSettings
        ),

        .systemLibrary(
            name: "CStrataSQLite",
            path: "Backends/SQLite/CStrataSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "StrataSQLite",
            dependencies: ["StrataCore", "CStrataSQLite", .product(name: "Logging", package: "swift-log")],
            path: "Backends/SQLite/StrataSQLite",
            swiftSettings: strictSettings
        ),
        .systemLibrary(
            name: "CStrataLMDB",
            path: "Backends/LMDB/CStrataLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(
            name: "StrataLMDB",
            dependencies: ["StrataCore", "CStrataLMDB"],
            path: "Backends/LMDB/StrataLMDB",
            swiftSettings: strictSettings
        ),
        .systemLibrary(
            name: "CStrataXML",
            path: "Backends/XML/CStrataXML",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .target(
            name: "StrataXML",
            dependencies: ["StrataCore", "CStrataXML"],
            path: "Backends/XML/StrataXML",
            swiftSettings: strictSettings
        ),

        .systemLibrary(
            name: "CStrataPostgres",
            path: "Backends/PostgreSQL/CStrataPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(
            name: "StrataPostgres",
            dependencies: ["StrataCore", "CStrataPostgres", .product(name: "Logging", package: "swift-log")],
            path: "Backends/PostgreSQL/StrataPostgres",
            swiftSettings: strictSettings
        ),

        // MARK: Transfer (JSON Lines import and export, store copy, validation; no engine type)
        .target(
            name: "StrataTransfer",
            dependencies: ["StrataCore"],
            path: "Sources/StrataTransfer",
            swiftSettings: strictSettings
        ),

        // MARK: Engine (no backend), umbrella (the engine and every built-in backend), conformance kit, tool
        // The compiler plugin of the typed APIs' macros (`@Managed` for ManagedObject subclasses, and
        // StrataData's), run at build time only: nothing of swift-syntax links into programs.
        .macro(
            name: "StrataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            path: "Sources/StrataMacros",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataEngine",
            dependencies: [
                "StrataCore", "StrataMigrations", "StrataMacros", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/StrataEngine",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Strata",
            dependencies: [
                "StrataCore", "StrataEngine", "StrataMigrations", "StrataTransfer",
                "StrataInMemory", "StrataSQLite", "StrataLMDB", "StrataXML", "StrataPostgres",
            ],
            path: "Sources/Strata",
            swiftSettings: strictSettings
        ),
        // SwiftData's API on Linux, on any Strata backend (docs/StrataData.md).
        .target(
            name: "StrataData",
            dependencies: ["Strata", "StrataEngine", "StrataCore", "StrataMigrations", "StrataMacros"],
            path: "Sources/StrataData",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataConformance",
            dependencies: ["StrataCore"],
            path: "Sources/StrataConformance",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata",
            dependencies: [
                "Strata",
                "StrataMigrations",
                "StrataTransfer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/strata",
            swiftSettings: strictSettings
        ),

        // An application of the engine and one backend: LinkageTests check that it needs
        // libsqlite3 and neither liblmdb nor libxml2.
        .executableTarget(
            name: "strata-sqlite-only-example",
            dependencies: ["StrataEngine", "StrataSQLite"],
            path: "Examples/SQLiteOnly",
            swiftSettings: strictSettings
        ),

        // A SwiftData program (two versioned schemas, a migration plan, a model actor) built on
        // StrataData with only its import changed: .ci/run runs it on every backend, and
        // TripPlannerExampleTests run its binary.
        .executableTarget(
            name: "TripPlanner",
            dependencies: ["StrataData"],
            path: "Examples/TripPlanner",
            swiftSettings: strictSettings
        ),

        // docs/LiveQueries.md's list during a background import, end to end: LiveListExampleTests
        // run its binary.
        .executableTarget(
            name: "live-list",
            dependencies: ["Strata"],
            path: "Examples/LiveList",
            swiftSettings: strictSettings
        ),

        // README.md's Swift samples, as the README shows them: built with the package so that a sample
        // that stops compiling fails CI, and ReadmeSampleTests check that the README still shows them.
        .executableTarget(
            name: "readme-strata-sample",
            dependencies: ["Strata"],
            path: "Examples/ReadmeSamples/Strata",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "readme-strata-data-sample",
            dependencies: ["StrataData"],
            path: "Examples/ReadmeSamples/StrataData",
            swiftSettings: strictSettings
        ),

        // MARK: Probes (Probes/: the second processes the tests start, and the reliability tests'
        // workload and helper process; docs/Reliability.md)
        .executableTarget(
            name: "strata-sqlite-probe",
            dependencies: ["StrataSQLite", "StrataTestSupport"],
            path: "Probes/strata-sqlite-probe",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata-lmdb-probe",
            dependencies: ["StrataLMDB", "StrataCore", "StrataTestSupport"],
            path: "Probes/strata-lmdb-probe",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata-migration-probe",
            dependencies: ["StrataMigrations", "StrataSQLite", "StrataLMDB", "StrataXML", "StrataPostgres"],
            path: "Probes/strata-migration-probe",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata-remote-probe",
            dependencies: ["Strata"],
            path: "Probes/strata-remote-probe",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata-change-probe",
            dependencies: ["Strata", "StrataTestSupport", "StrataRandomGraph"],
            path: "Probes/strata-change-probe",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataTortureKit",
            dependencies: ["StrataCore", "StrataSQLite", "StrataLMDB", "StrataXML", "StrataTestSupport"],
            path: "Probes/StrataTortureKit",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata-torture",
            dependencies: ["StrataTortureKit", "StrataCore", "StrataTestSupport"],
            path: "Probes/strata-torture",
            swiftSettings: strictSettings
        ),

        // MARK: Tests (StrataTestSupport: generators, fixtures and helpers the test targets share)
        // The randomized tests' model and changes, shared with strata-change-probe.
        .target(
            name: "StrataRandomGraph",
            dependencies: ["StrataCore", "StrataEngine", "StrataTestSupport"],
            path: "Tests/StrataRandomGraph",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrataTestSupport",
            dependencies: ["StrataCore", .product(name: "Logging", package: "swift-log")],
            path: "Tests/StrataTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataMigrationsTests",
            dependencies: [
                "StrataTestSupport", "StrataMigrations", "StrataInMemory", "StrataSQLite", "StrataLMDB", "StrataXML",
                "StrataPostgres", "strata-migration-probe", "strata",
            ],
            path: "Tests/StrataMigrationsTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataCoreTests",
            dependencies: ["StrataTestSupport", "StrataCore"],
            path: "Tests/StrataCoreTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataInMemoryTests",
            dependencies: ["StrataInMemory", "StrataConformance"],
            path: "Tests/StrataInMemoryTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataSQLiteTests",
            dependencies: [
                "StrataTestSupport", "StrataSQLite", "StrataConformance", "strata-sqlite-probe",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/StrataSQLiteTests",
            swiftSettings: strictSettings
        ),
        // Against a PostgreSQL server: STRATA_TEST_POSTGRES_URL (scripts/postgres-test-server); without
        // one they are skipped and say so, unless STRATA_REQUIRE_POSTGRES is set (make test sets both).
        .testTarget(
            name: "StrataPostgresTests",
            dependencies: ["StrataTestSupport", "StrataPostgres", "StrataConformance"],
            path: "Tests/StrataPostgresTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataConformanceTests",
            dependencies: ["StrataTestSupport", "StrataConformance", "StrataInMemory"],
            path: "Tests/StrataConformanceTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataLMDBTests",
            dependencies: ["StrataTestSupport", "StrataLMDB", "CStrataLMDB", "StrataConformance", "strata-lmdb-probe"],
            path: "Tests/StrataLMDBTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataXMLTests",
            dependencies: ["StrataTestSupport", "StrataXML", "StrataConformance"],
            path: "Tests/StrataXMLTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: [
                "StrataTestSupport", "StrataRandomGraph", "Strata", "strata", "strata-remote-probe",
                "strata-change-probe",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/StrataTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataMacrosTests",
            dependencies: [
                "StrataMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ],
            path: "Tests/StrataMacrosTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataDataTests",
            dependencies: ["StrataTestSupport", "StrataData", "Strata", "strata"],
            path: "Tests/StrataDataTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataToolTests",
            dependencies: [
                "StrataTestSupport", "Strata", "StrataTransfer", "StrataPostgres", "strata",
                "strata-sqlite-only-example",
                "TripPlanner", "live-list",
            ],
            path: "Tests/StrataToolTests",
            exclude: ["HelpSnapshots"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataReliabilityTests",
            dependencies: [
                "StrataTestSupport", "StrataTortureKit", "strata-torture", "StrataCore", "StrataSQLite",
                "CStrataSQLite",
                "StrataLMDB", "CStrataLMDB", "StrataXML", "StrataPostgres", "Strata", "StrataTransfer", "strata",
            ],
            path: "Tests/StrataReliabilityTests",
            swiftSettings: strictSettings
        ),
    ]
)
