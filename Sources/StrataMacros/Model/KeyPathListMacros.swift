import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `#Unique<Trip>([\.name, \.startDate], [\.code])` inside a `@Model` class (StrataData): the
/// model's `_$uniqueConstraints`, from which its entity's unique constraints are built.
/// `@Model` checks that each key path names a stored attribute.
public struct UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let model = KeyPathListExpansion.validatedModelType(of: node, in: context) else { return [] }
        return [
            """
            public static var _$uniqueConstraints: [[Swift.AnyKeyPath]] {
                StrataData.Schema.Unique<\(raw: model)>(\(node.arguments.trimmed)).keyPaths
            }
            """
        ]
    }
}

/// `#Index<Trip>([\.name], [\.startDate, \.endDate])` or `#Index<Trip>(.binary([\.name]))` inside
/// a `@Model` class (StrataData): the model's `_$indexes`, from which its entity's indexes are
/// built. `@Model` checks that each key path names a stored attribute.
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let model = KeyPathListExpansion.validatedModelType(of: node, in: context) else { return [] }
        return [
            """
            public static var _$indexes: [[Swift.AnyKeyPath]] {
                StrataData.Schema.Index<\(raw: model)>(\(node.arguments.trimmed)).keyPaths
            }
            """
        ]
    }
}

/// What `#Unique` and `#Index` share.
enum KeyPathListExpansion {
    /// The model type of the macro's generic argument, after diagnosing the arguments' shape;
    /// `nil` when there is a problem (nothing is generated then).
    static func validatedModelType(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) -> String? {
        let lists = KeyPathLists(node)
        for problem in lists.problems {
            context.diagnose(Diagnostic(node: problem.node, message: problem.message))
        }
        return lists.problems.isEmpty ? lists.modelType : nil
    }
}
