import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import StrataMacros

/// The macros of the plugin by the names users write.
let strataMacros: [String: MacroSpec] = [
    "Managed": MacroSpec(type: ManagedMacro.self),
    "_ManagedSlot": MacroSpec(type: ManagedSlotMacro.self),
    "Attribute": MacroSpec(type: PropertyMarkerMacro.self),
    "Relationship": MacroSpec(type: PropertyMarkerMacro.self),
    "Transient": MacroSpec(type: PropertyMarkerMacro.self),
]

/// `assertMacroExpansion` reporting to Swift Testing: records an issue at the caller's line
/// when `source` does not expand to `expanded` with exactly `diagnostics`.
func expectExpansion(
    _ source: String, expandsTo expanded: String, diagnostics: [DiagnosticSpec] = [],
    macros: [String: MacroSpec] = strataMacros,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
) {
    assertMacroExpansion(
        source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macros,
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        })
}
