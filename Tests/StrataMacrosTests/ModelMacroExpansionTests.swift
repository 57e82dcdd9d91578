import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import StrataMacros

/// StrataData's macros by the names users write.
let modelMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel"]),
    "Attribute": MacroSpec(type: PropertyMarkerMacro.self),
    "Relationship": MacroSpec(type: PropertyMarkerMacro.self),
    "Transient": MacroSpec(type: PropertyMarkerMacro.self),
]

/// What `@Model` makes of a class (StrataData).
@Suite struct ModelMacroExpansionTests {
    @Test func aModelGetsItsBackingMetadataLayoutAndPropertyMacros() {
        expectExpansion(
            """
            @Model final class Trip {
                @Attribute(.unique) var name: String
                @Relationship(deleteRule: .cascade) var items: [Item] = []
                @Transient var isSelected = false
                init(name: String) { self.name = name }
            }
            """,
            expandsTo: """
                final class Trip {
                    @StrataData._PersistedProperty(0) var name: String
                    @StrataData._PersistedProperty(1) var items: [Item] = []
                    var isSelected = false
                    init(name: String) { self.name = name }

                    #if !DEBUG
                    @exclusivity(unchecked)
                    #endif
                    private var _$backingData = StrataData._ModelBackingStorage<Trip>()

                    public var persistentBackingData: StrataData.BackingData<Trip> {
                        get {
                            if let backing = _$backingData.backing {
                                return backing
                            }
                            let backing = Self._$detachedBacking()
                            _$backingData.backing = backing
                            return backing
                        }
                        set {
                            _$backingData.replace(with: newValue, for: self)
                        }
                    }

                    /// A detached object for a model made by its own initializer, holding the declared
                    /// initial values.
                    private static func _$detachedBacking() -> StrataData.BackingData<Trip> {
                        let backing = StrataData.BackingData<Trip>.detached()
                        do {
                        let value: [Item] = []
                        backing.setValue(value, at: Self._$layout.slots[1])
                        }
                        return backing
                    }

                    public static let _$layout = StrataData.ModelLayout.of(Trip.self)

                    public static var schemaMetadata: [StrataData.Schema.PropertyMetadata] {
                        [
                            StrataData.Schema.PropertyMetadata(
                                name: "name", keypath: \\Trip.name, defaultValue: nil,
                                metadata: StrataData.Schema.Attribute(.unique)),
                            StrataData.Schema.PropertyMetadata(
                                name: "items", keypath: \\Trip.items, defaultValue: { () -> [Item] in
                                    []
                                }(),
                                metadata: StrataData.Schema.Relationship(deleteRule: .cascade))
                        ]
                    }

                    public required init(backingData: StrataData.BackingData<Trip>) {
                        _name = StrataData._ModelNoStorage()
                        _items = StrataData._ModelNoStorage()
                        _$backingData.backing = backingData
                    }
                }

                extension Trip: StrataData.PersistentModel {
                }
                """,
            macros: modelMacros)
    }

    @Test func aStoredPropertyWithoutATypeIsDiagnosed() {
        expectExpansion(
            """
            @Model final class Counter {
                var count = 0
            }
            """,
            expandsTo: """
                final class Counter {
                    var count = 0

                    #if !DEBUG
                    @exclusivity(unchecked)
                    #endif
                    private var _$backingData = StrataData._ModelBackingStorage<Counter>()

                    public var persistentBackingData: StrataData.BackingData<Counter> {
                        get {
                            if let backing = _$backingData.backing {
                                return backing
                            }
                            let backing = Self._$detachedBacking()
                            _$backingData.backing = backing
                            return backing
                        }
                        set {
                            _$backingData.replace(with: newValue, for: self)
                        }
                    }

                    /// A detached object for a model made by its own initializer, holding the declared
                    /// initial values.
                    private static func _$detachedBacking() -> StrataData.BackingData<Counter> {
                        let backing = StrataData.BackingData<Counter>.detached()

                        return backing
                    }

                    public static let _$layout = StrataData.ModelLayout.of(Counter.self)

                    public static var schemaMetadata: [StrataData.Schema.PropertyMetadata] {
                        []
                    }

                    public required init(backingData: StrataData.BackingData<Counter>) {
                        _$backingData.backing = backingData
                    }
                }

                extension Counter: StrataData.PersistentModel {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "give 'count' a type annotation: @Model stores it by its declared type", line: 2,
                    column: 9)
            ],
            macros: modelMacros)
    }

    @Test func aStructIsRefused() {
        expectExpansion(
            """
            @Model struct Point {
                var x: Int
            }
            """,
            expandsTo: """
                struct Point {
                    var x: Int
                }
                """,
            diagnostics: [DiagnosticSpec(message: "@Model applies to a final class", line: 1, column: 1)],
            macros: modelMacros)
    }
}
