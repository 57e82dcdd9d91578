import Foundation
import Strata

// The Team/Player model (a background context adds players to a team).

@Managed
final class Team: ManagedObject {
    @Attribute(validation: AttributeValidation(minimumLength: 1)) var name: String
    @Relationship(inverse: "team", deleteRule: .cascade) var players: Set<Player>
}

@Managed
final class Player: ManagedObject {
    @Attribute(validation: AttributeValidation(minimumLength: 1)) var name: String
    @Attribute(default: 0) var age: Int16
    @Relationship(inverse: "players") var team: Team?
}

/// A coordinator on a fresh in-memory store of the Team/Player model, classes registered.
func makeTeamCoordinator() throws -> StoreCoordinator {
    let model = try Model(versionIdentifier: "1", classes: [Team.self, Player.self])
    let coordinator = StoreCoordinator(model: model)
    try coordinator.addStore(BuiltInBackends.registry.open("memory:", model: model))
    try coordinator.registerClasses([Team.self, Player.self])
    return coordinator
}

/// Values collected from several threads.
final class Collector<Element: Sendable>: Sendable {
    private let storage = Locked<[Element]>([])
    func append(_ element: Element) { storage.withLock { $0.append(element) } }
    var values: [Element] { storage.withLock { $0 } }
}

/// Runs `body` on a GCD worker thread (never the calling thread, which waits) and waits for it.
func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let caller = currentThreadID()
    DispatchQueue.global().async {
        precondition(currentThreadID() != caller, "the worker must be another thread")
        body()
        done.signal()
    }
    done.wait()
}

/// The calling thread's identity.
func currentThreadID() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
    #else
        UInt(pthread_self())
    #endif
}

/// Marks the main queue, so tests can tell when they run on it (on Linux, `dispatch_main`
/// drains the main queue on a worker thread, so `Thread.isMainThread` is not the test).
private let mainQueueMarker: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Whether the caller runs on the main queue (or the main thread).
func isOnMainQueue() -> Bool {
    Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueMarker) == true
}
