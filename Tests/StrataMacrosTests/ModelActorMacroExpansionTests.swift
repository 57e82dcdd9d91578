import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import StrataMacros

/// What `@ModelActor` makes of an actor (StrataData).
@Suite struct ModelActorMacroExpansionTests {
    static let macros: [String: MacroSpec] = [
        "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"])
    ]

    @Test func anActorGetsItsContainerExecutorAndInitializer() {
        expectExpansion(
            """
            @ModelActor actor TripImporter {
                func count() -> Int { 0 }
            }
            """,
            expandsTo: """
                actor TripImporter {
                    func count() -> Int { 0 }

                    nonisolated let modelExecutor: any StrataData.ModelExecutor

                    nonisolated let modelContainer: StrataData.ModelContainer

                    init(modelContainer: StrataData.ModelContainer) {
                        let modelContext = StrataData.ModelContext(modelContainer)
                        self.modelExecutor = StrataData.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension TripImporter: StrataData.ModelActor {
                }
                """,
            macros: Self.macros)
    }

    @Test func aPublicActorsMembersArePublic() {
        expectExpansion(
            """
            @ModelActor public actor Importer {
            }
            """,
            expandsTo: """
                public actor Importer {

                    public nonisolated let modelExecutor: any StrataData.ModelExecutor

                    public nonisolated let modelContainer: StrataData.ModelContainer

                    public init(modelContainer: StrataData.ModelContainer) {
                        let modelContext = StrataData.ModelContext(modelContainer)
                        self.modelExecutor = StrataData.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension Importer: StrataData.ModelActor {
                }
                """,
            macros: Self.macros)
    }

    @Test func aClassIsRefused() {
        expectExpansion(
            """
            @ModelActor final class Importer {
            }
            """,
            expandsTo: """
                final class Importer {
                }
                """,
            diagnostics: [DiagnosticSpec(message: "@ModelActor applies to an actor", line: 1, column: 1)],
            macros: Self.macros)
    }
}
