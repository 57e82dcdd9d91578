import StrataData

// Models written out as `@Model` expands them, so the runtime is tested apart from the macro.

enum TripStatus: String, Codable {
    case planned, booked, done
}

struct Budget: Codable, Equatable {
    var amount: Double
    var currency: String
}

final class PlainTrip {
    private var _$backingData = _ModelBackingStorage<PlainTrip>()
    var persistentBackingData: BackingData<PlainTrip> {
        get {
            if let backing = _$backingData.backing { return backing }
            let backing = Self._$detachedBacking()
            _$backingData.backing = backing
            return backing
        }
        set { _$backingData.replace(with: newValue, for: self) }
    }
    private static func _$detachedBacking() -> BackingData<PlainTrip> {
        let backing = BackingData<PlainTrip>.detached()
        do {
            let value: TripStatus? = .planned
            backing.setValue(value, at: Self._$layout.slots[2])
        }
        do {
            let value: [PlainItem] = []
            backing.setValue(value, at: Self._$layout.slots[4])
        }
        return backing
    }
    static let _$layout = ModelLayout.of(PlainTrip.self)
    static var schemaMetadata: [Schema.PropertyMetadata] {
        [
            Schema.PropertyMetadata(
                name: "name", keypath: \PlainTrip.name, defaultValue: nil, metadata: Schema.Attribute(.unique)),
            Schema.PropertyMetadata(name: "start", keypath: \PlainTrip.start, defaultValue: nil, metadata: nil),
            Schema.PropertyMetadata(name: "status", keypath: \PlainTrip.status, defaultValue: nil, metadata: nil),
            Schema.PropertyMetadata(name: "budget", keypath: \PlainTrip.budget, defaultValue: nil, metadata: nil),
            Schema.PropertyMetadata(
                name: "items", keypath: \PlainTrip.items, defaultValue: nil,
                metadata: Schema.Relationship(deleteRule: .cascade, inverse: \PlainItem.trip)),
        ]
    }
    init(backingData: BackingData<PlainTrip>) {
        _name = _ModelNoStorage()
        _start = _ModelNoStorage()
        _status = _ModelNoStorage()
        _budget = _ModelNoStorage()
        _items = _ModelNoStorage()
        _$backingData.backing = backingData
    }

    private var _name: _ModelNoStorage
    var name: String {
        @storageRestrictions(accesses: _$backingData, initializes: _name)
        init(initialValue) {
            if _$backingData.backing == nil { _$backingData.backing = Self._$detachedBacking() }
            _$backingData.backing.unsafelyUnwrapped.setValue(initialValue, at: Self._$layout.slots[0])
            _name = _ModelNoStorage()
        }
        get { persistentBackingData.getValue(at: Self._$layout.slots[0]) }
        set { persistentBackingData.setValue(newValue, at: Self._$layout.slots[0]) }
    }
    private var _start: _ModelNoStorage
    var start: Date {
        @storageRestrictions(accesses: _$backingData, initializes: _start)
        init(initialValue) {
            if _$backingData.backing == nil { _$backingData.backing = Self._$detachedBacking() }
            _$backingData.backing.unsafelyUnwrapped.setValue(initialValue, at: Self._$layout.slots[1])
            _start = _ModelNoStorage()
        }
        get { persistentBackingData.getValue(at: Self._$layout.slots[1]) }
        set { persistentBackingData.setValue(newValue, at: Self._$layout.slots[1]) }
    }
    private var _status: _ModelNoStorage
    var status: TripStatus? = .planned {
        @storageRestrictions(accesses: _$backingData, initializes: _status)
        init(initialValue) {
            if let backing = _$backingData.backing { backing.setValue(initialValue, at: Self._$layout.slots[2]) }
            _status = _ModelNoStorage()
        }
        get { persistentBackingData.getValue(at: Self._$layout.slots[2]) }
        set { persistentBackingData.setValue(newValue, at: Self._$layout.slots[2]) }
    }
    private var _budget: _ModelNoStorage
    var budget: Budget? {
        @storageRestrictions(accesses: _$backingData, initializes: _budget)
        init(initialValue) {
            if _$backingData.backing == nil { _$backingData.backing = Self._$detachedBacking() }
            _$backingData.backing.unsafelyUnwrapped.setValue(initialValue, at: Self._$layout.slots[3])
            _budget = _ModelNoStorage()
        }
        get { persistentBackingData.getValue(at: Self._$layout.slots[3]) }
        set { persistentBackingData.setValue(newValue, at: Self._$layout.slots[3]) }
    }
    private var _items: _ModelNoStorage
    var items: [PlainItem] = [] {
        @storageRestrictions(accesses: _$backingData, initializes: _items)
        init(initialValue) {
            if let backing = _$backingData.backing { backing.setValue(initialValue, at: Self._$layout.slots[4]) }
            _items = _ModelNoStorage()
        }
        get { persistentBackingData.getValue(at: Self._$layout.slots[4]) }
        set { persistentBackingData.setValue(newValue, at: Self._$layout.slots[4]) }
    }
    var isFavorite = false

    init(name: String, start: Date) {
        self.name = name
        self.start = start
    }
}

extension PlainTrip: PersistentModel {}

final class PlainItem {
    private var _$backingData = _ModelBackingStorage<PlainItem>()
    var persistentBackingData: BackingData<PlainItem> {
        get {
            if let backing = _$backingData.backing { return backing }
            let backing = Self._$detachedBacking()
            _$backingData.backing = backing
            return backing
        }
        set { _$backingData.replace(with: newValue, for: self) }
    }
    private static func _$detachedBacking() -> BackingData<PlainItem> {
        let backing = BackingData<PlainItem>.detached()
        return backing
    }
    static let _$layout = ModelLayout.of(PlainItem.self)
    static var schemaMetadata: [Schema.PropertyMetadata] {
        [
            Schema.PropertyMetadata(name: "title", keypath: \PlainItem.title, defaultValue: nil, metadata: nil),
            Schema.PropertyMetadata(name: "trip", keypath: \PlainItem.trip, defaultValue: nil, metadata: nil),
        ]
    }
    init(backingData: BackingData<PlainItem>) {
        _title = _ModelNoStorage()
        _trip = _ModelNoStorage()
        _$backingData.backing = backingData
    }

    private var _title: _ModelNoStorage
    var title: String {
        @storageRestrictions(accesses: _$backingData, initializes: _title)
        init(initialValue) {
            if _$backingData.backing == nil { _$backingData.backing = Self._$detachedBacking() }
            _$backingData.backing.unsafelyUnwrapped.setValue(initialValue, at: Self._$layout.slots[0])
            _title = _ModelNoStorage()
        }
        get { persistentBackingData.getValue(at: Self._$layout.slots[0]) }
        set { persistentBackingData.setValue(newValue, at: Self._$layout.slots[0]) }
    }
    private var _trip: _ModelNoStorage
    var trip: PlainTrip? {
        @storageRestrictions(accesses: _$backingData, initializes: _trip)
        init(initialValue) {
            if _$backingData.backing == nil { _$backingData.backing = Self._$detachedBacking() }
            _$backingData.backing.unsafelyUnwrapped.setValue(initialValue, at: Self._$layout.slots[1])
            _trip = _ModelNoStorage()
        }
        get { persistentBackingData.getValue(at: Self._$layout.slots[1]) }
        set { persistentBackingData.setValue(newValue, at: Self._$layout.slots[1]) }
    }

    init(title: String) {
        self.title = title
    }
}

extension PlainItem: PersistentModel {}
