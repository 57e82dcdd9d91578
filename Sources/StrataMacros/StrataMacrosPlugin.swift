import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin of Strata's macros. Each typed API keeps its macros in a folder of its own
/// (`Managed/` for the engine's ``ManagedObject`` subclasses); this list is the one place they meet.
@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ManagedMacro.self,
        ManagedSlotMacro.self,
        PropertyMarkerMacro.self,
        ModelMacro.self,
        PersistedPropertyMacro.self,
        UniqueMacro.self,
        IndexMacro.self,
        ModelActorMacro.self,
    ]
}
