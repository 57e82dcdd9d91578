import SwiftDiagnostics
import SwiftSyntax

/// The key-path lists of a `#Unique` or `#Index` (StrataData): `#Unique<Trip>([\.name, \.start], [\.code])`
/// or `#Index<Trip>(.binary([\.name]))`, each list one constraint or index, each key path one
/// stored property named by its single component.
struct KeyPathLists {
    /// A key path of a list: the property it names and where it is written.
    struct Entry {
        let name: String
        let node: Syntax
    }

    /// The macro's name as written (`Unique` or `Index`).
    let macro: String
    /// The model type of the generic argument (`Trip` in `#Unique<Trip>`), if written.
    let modelType: String?
    /// The lists, in order; a list with a key path that names no single property is left out.
    private(set) var lists: [[Entry]] = []
    /// What is wrong with the arguments' shape.
    private(set) var problems: [(node: Syntax, message: KeyPathListDiagnostic)] = []

    init(_ node: some FreestandingMacroExpansionSyntax) {
        macro = node.macroName.text
        modelType = node.genericArgumentClause?.arguments.first?.argument.trimmedDescription
        if modelType == nil {
            problems.append((Syntax(node.macroName), .missingModelType(macro)))
        }
        if node.arguments.isEmpty {
            problems.append((Syntax(node.macroName), .noList(macro)))
        }
        for argument in node.arguments {
            guard let array = Self.array(in: argument.expression) else {
                problems.append((Syntax(argument.expression), .notAList(macro)))
                continue
            }
            if array.elements.isEmpty {
                problems.append((Syntax(array), .emptyList(macro)))
                continue
            }
            var entries: [Entry] = []
            for element in array.elements {
                guard let keyPath = element.expression.as(KeyPathExprSyntax.self) else {
                    problems.append((Syntax(element.expression), .notAKeyPath(macro)))
                    continue
                }
                guard keyPath.components.count == 1,
                    let property = keyPath.components.first?.component.as(KeyPathPropertyComponentSyntax.self)
                else {
                    problems.append((Syntax(keyPath), .notOneProperty(macro, keyPath.trimmedDescription)))
                    continue
                }
                let name = property.declName.baseName.text
                if entries.contains(where: { $0.name == name }) {
                    problems.append((Syntax(keyPath), .repeated(macro, name)))
                    continue
                }
                entries.append(Entry(name: name, node: Syntax(keyPath)))
            }
            if entries.count == array.elements.count { lists.append(entries) }
        }
    }

    /// The array literal of an argument: the argument itself, or the one of `.binary([...])` and
    /// `.rtree([...])`.
    private static func array(in expression: ExprSyntax) -> ArrayExprSyntax? {
        if let array = expression.as(ArrayExprSyntax.self) { return array }
        guard let call = expression.as(FunctionCallExprSyntax.self),
            let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            ["binary", "rtree"].contains(member.declName.baseName.text), call.arguments.count == 1
        else { return nil }
        return call.arguments.first?.expression.as(ArrayExprSyntax.self)
    }
}

/// What `#Unique` and `#Index`, or `@Model` about them, report.
enum KeyPathListDiagnostic: DiagnosticMessage {
    case missingModelType(String)
    case noList(String)
    case notAList(String)
    case emptyList(String)
    case notAKeyPath(String)
    case notOneProperty(String, String)
    case repeated(String, String)
    case notStored(String, property: String, model: String)
    case relationship(String, property: String)
    case otherModel(String, written: String, model: String)
    case declaredTwice(String)

    var message: String {
        switch self {
        case .missingModelType(let macro):
            "write the model type: #\(macro)<Trip>([\\.name])"
        case .noList(let macro):
            "#\(macro) needs one key-path list or more: #\(macro)<Trip>([\\.name, \\.startDate])"
        case .notAList(let macro):
            "give #\(macro) key-path lists written out ([\\.name, \\.startDate]), which @Model checks against the "
                + "class's stored properties"
        case .emptyList(let macro):
            "a list of #\(macro) is empty: give it one stored attribute or more"
        case .notAKeyPath(let macro):
            "a list of #\(macro) holds key paths written out (\\.name)"
        case .notOneProperty(let macro, let keyPath):
            "'\(keyPath)' does not name one property: #\(macro) lists stored attributes of the model (\\.name)"
        case .repeated(let macro, let property):
            "'\(property)' is listed twice in one list of #\(macro)"
        case .notStored(let macro, let property, let model):
            "'\(property)' is not a stored property of \(model): #\(macro) lists stored attributes (not @Transient "
                + "or computed properties)"
        case .relationship(let macro, let property):
            "'\(property)' is a relationship: #\(macro) lists attributes (Strata's unique constraints and indexes "
                + "cover attributes only)"
        case .otherModel(let macro, let written, let model):
            "#\(macro)<\(written)> is inside \(model): write #\(macro)<\(model)>"
        case .declaredTwice(let macro):
            "declare one #\(macro) per model, with every list in it"
        }
    }

    var diagnosticID: MessageID {
        let id =
            switch self {
            case .missingModelType: "missingModelType"
            case .noList: "noList"
            case .notAList: "notAList"
            case .emptyList: "emptyList"
            case .notAKeyPath: "notAKeyPath"
            case .notOneProperty: "notOneProperty"
            case .repeated: "repeated"
            case .notStored: "notStored"
            case .relationship: "relationship"
            case .otherModel: "otherModel"
            case .declaredTwice: "declaredTwice"
            }
        return MessageID(domain: "StrataData.KeyPathLists", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}
