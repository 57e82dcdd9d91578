import Foundation
import StrataEngine

extension PersistentContainer {
    /// A container for `model` whose store URLs find their backends in
    /// ``BuiltInBackends/registry``; otherwise
    /// ``PersistentContainer/init(name:model:storeDescriptions:stack:migrator:environment:registry:)``.
    ///
    /// ```swift
    /// let container = PersistentContainer(name: "Company", model: model)   // sqlite:Company.sqlite
    /// ```
    public convenience init(
        name: String,
        model: Model,
        storeDescriptions: [StoreDescription]? = nil,
        stack: ContainerStackStyle = .threeTier,
        migrator: (any StoreMigrating)? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.init(
            name: name, model: model, storeDescriptions: storeDescriptions, stack: stack, migrator: migrator,
            environment: environment, registry: BuiltInBackends.registry
        )
    }

    /// A container for the current version of `versionedModel` whose store URLs find their
    /// backends in ``BuiltInBackends/registry``; otherwise
    /// ``PersistentContainer/init(name:versionedModel:storeDescriptions:stack:migrator:environment:registry:)``.
    public convenience init(
        name: String,
        versionedModel: VersionedModel,
        storeDescriptions: [StoreDescription]? = nil,
        stack: ContainerStackStyle = .threeTier,
        migrator: (any StoreMigrating)? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.init(
            name: name, versionedModel: versionedModel, storeDescriptions: storeDescriptions, stack: stack,
            migrator: migrator, environment: environment, registry: BuiltInBackends.registry
        )
    }
}
