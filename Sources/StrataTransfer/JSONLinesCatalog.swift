import StrataCore

/// Every object of an import by number (the order its ref was first seen): its ref, its
/// entity, the line defining it. Three flat arrays and a ``JSONLinesRefTable``: about 18 bytes
/// per object plus its ref's bytes.
struct JSONLinesCatalog {
    /// The entity of an object only named so far.
    static let undefined = UInt16.max

    private(set) var refs = JSONLinesRefTable()
    /// Per number: the entity's position in the model, or ``undefined``.
    private(set) var entities: [UInt16] = []
    /// Per number: the line defining the object (0 while undefined).
    private(set) var lines: [Int32] = []

    var count: Int { entities.count }

    /// Records that line `line` defines `ref` as an object of entity `entity`.
    ///
    /// - Returns: the object's number, or, when another line defined `ref` already, that line
    ///   as `duplicateOf`.
    mutating func define(_ ref: String, entity: Int, line: Int) throws -> (number: Int, duplicateOf: Int?) {
        let (number, isNew) = try refs.number(of: ref)
        if isNew {
            entities.append(UInt16(entity))
            lines.append(Int32(clamping: line))
        } else if entities[number] != Self.undefined {
            return (number, Int(lines[number]))
        } else {
            entities[number] = UInt16(entity)
            lines[number] = Int32(clamping: line)
        }
        return (number, nil)
    }

    /// The number of `ref` as a relationship names it (the object may be defined later).
    mutating func mention(_ ref: String) throws -> Int {
        let (number, isNew) = try refs.number(of: ref)
        if isNew {
            entities.append(Self.undefined)
            lines.append(0)
        }
        return number
    }

    /// The number of a defined `ref`, or `nil`.
    func lookup(_ ref: String) -> Int? {
        guard let number = refs.lookup(ref), entities[number] != Self.undefined else { return nil }
        return number
    }

    func ref(_ number: Int) -> String { refs.ref(number) }
    func entity(_ number: Int) -> Int? { entities[number] == Self.undefined ? nil : Int(entities[number]) }
    func line(_ number: Int) -> Int { Int(lines[number]) }
}
