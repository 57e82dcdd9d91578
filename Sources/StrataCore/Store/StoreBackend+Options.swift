extension StoreBackend {
    /// The backend does not declare its options: they are passed to ``open(_:model:options:)``
    /// unchecked, and it checks them there.
    public var supportedOptions: [StoreBackendOption]? { nil }

    /// The declared option named `name`, or `nil`.
    public func supportedOption(named name: String) -> StoreBackendOption? {
        supportedOptions?.first { $0.name == name }
    }

    /// Checks the names and values of `values` against ``supportedOptions``; does nothing for a
    /// backend that does not declare its options.
    ///
    /// - Parameter url: the store the options are for, named in errors; `nil` when there is none
    ///   yet (a configuration file being read).
    /// - Throws: ``StrataError/Code/invalidOption`` naming the option, the backend's scheme and,
    ///   for a bad value, the value and what the option takes. `location` has `option`,
    ///   `backend`, and `value` and `url` when known.
    public func checkOptions(_ values: [String: String], for url: StoreURL?) throws {
        guard let declared = supportedOptions else { return }
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            var location = ["option": name, "backend": scheme]
            if let url { location["url"] = url.description }
            guard let option = declared.first(where: { $0.name == name }) else {
                let known = declared.map(\.name).sorted()
                throw StrataError(
                    .invalidOption,
                    "the \(scheme) backend has no option '\(name)'; it has "
                        + (known.isEmpty ? "none" : known.joined(separator: ", ")),
                    location: location)
            }
            guard option.isValid(value) else {
                location["value"] = value
                throw StrataError(
                    .invalidOption,
                    "option \(name)='\(value)' is not valid for the \(scheme) backend: expected \(option.expected)",
                    location: location)
            }
        }
    }
}
