import Dispatch
import Foundation
import StrataCore

extension PersistentContainer {
    /// Where the load is: ``ContainerState/notLoaded``, ``ContainerState/loading``,
    /// ``ContainerState/ready`` or ``ContainerState/failed(_:)``.
    public var state: ContainerState { loading.withLock { $0.state } }

    /// Loads every store in the background and returns when they are all open, or throws.
    ///
    /// The caller is suspended, never blocked: checks, migration and opening run on a thread of
    /// the container's, at a lower priority than the caller's (``LoaderThread``). Cancelling the calling task cancels the load (for every caller
    /// waiting on it): the load stops at the next step, closes what it opened, and throws
    /// ``StrataError/Code/cancelled``; it leaves every store at a whole model version, the one
    /// it had or one of its migration's steps, named by the error's `location["modelVersion"]`,
    /// and loading again continues from there (docs/Container.md). Calling it while a load runs
    /// waits for that load; calling it when ready returns at once; calling it after a failure
    /// tries again.
    ///
    /// - Throws: the ``StrataError`` the load failed with (also in ``state``):
    ///   ``StrataError/Code/unknownStoreScheme`` (listing the registered schemes),
    ///   ``StrataError/Code/storeNotFound``, ``StrataError/Code/io``,
    ///   ``StrataError/Code/storeCorrupt``, ``StrataError/Code/modelMismatch``,
    ///   ``StrataError/Code/invalidConfiguration``, ``StrataError/Code/cancelled``, ...
    public func loadPersistentStores() async throws {
        let relay = CancellationRelay()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                loadPersistentStores { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
                relay.setAction { [weak self] in self?.cancelLoading() }
            }
        } onCancel: {
            relay.cancel()
        }
    }

    /// Starts loading every store in the background and returns at once with the load's
    /// Foundation `Progress`; `completion` is called on the loading thread with `nil` when every
    /// store is open, or with the error (also in ``state``); when the container is already ready,
    /// on the container's queue.
    ///
    /// The `Progress` counts 1,000 units per store, shared by the phases (checking 50,
    /// migrating 750, opening 50, verifying 150), so its `fractionCompleted` rises from 0 to 1
    /// over the whole load; its `userInfo` under
    /// ``LoadProgress/progressUserInfoKey`` names the store and phase, as
    /// ``LoadProgress/description`` does); calling its `cancel()`
    /// cancels the load, as ``cancelLoading()`` does. When the container is already ready the
    /// `Progress` is complete and `completion` gets `nil`.
    @discardableResult
    public func loadPersistentStores(completion: @escaping @Sendable (StrataError?) -> Void) -> Progress {
        enum Start {
            case ready
            case join(LoadRun)
            case begin(LoadRun)
        }
        let start = loading.withLock { s -> Start in
            switch s.state {
            case .ready: return .ready
            case .loading: return .join(s.run!)
            case .notLoaded, .failed:
                let run = LoadRun(storeCount: storeDescriptions.count)
                s.state = .loading
                s.run = run
                return .begin(run)
            }
        }
        switch start {
        case .ready:
            loadQueue.async { completion(nil) }
            let done = Progress(totalUnitCount: 1)
            done.completedUnitCount = 1
            return done
        case .join(let run):
            run.addWaiter(completion)
            return run.progress
        case .begin(let run):
            run.addWaiter(completion)
            for slot in slots {
                slot.markPending()
                coordinator.refreshCapabilities(of: slot)
            }
            loadQueue.async { LoaderThread.start(name: "Strata.PersistentContainer.load") { self.runLoad(run) } }
            return run.progress
        }
    }

    /// Cancels the load in progress, if any (see ``loadPersistentStores()``).
    public func cancelLoading() {
        loading.withLock { $0.run }?.cancel()
    }

    /// Every step of the load in progress or of the next one to start, as an asynchronous
    /// sequence that ends when that load ends. When the container is ready or its load failed,
    /// the sequence is empty. Steps are buffered (the newest 1,000) for a slow reader.
    public func loadProgressUpdates() -> AsyncStream<LoadProgress> {
        let (stream, continuation) = AsyncStream<LoadProgress>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        let key = loading.withLock { s -> Int? in
            switch s.state {
            case .ready, .failed: return nil
            case .notLoaded, .loading:
                s.nextStream += 1
                s.streams[s.nextStream] = continuation
                return s.nextStream
            }
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.loading.withLock { $0.streams.removeValue(forKey: key) }
        }
        return stream
    }

    /// Closes every open store and returns the container to ``ContainerState/notLoaded``; its
    /// contexts see an empty graph again until the next load.
    ///
    /// - Throws: ``StrataError/Code/unsupported`` while a load runs; the first store's error
    ///   when closing fails (every store is closed anyway).
    public func closeStores() throws {
        try loading.withLock { s in
            if case .loading = s.state {
                throw StrataError(
                    .unsupported,
                    "the container '\(name)' is loading its stores; cancel or wait for the load before closing them",
                    location: ["container": name])
            }
            s.state = .notLoaded
        }
        stopWatchingRemoteChanges()
        var firstError: (any Error)?
        for slot in slots {
            do { try slot.close() } catch { firstError = firstError ?? error }
            slot.markPending()
            coordinator.refreshCapabilities(of: slot)
        }
        if let firstError { throw firstError }
    }

    /// The load itself, on a low-priority thread of its own (``LoaderThread``).
    func runLoad(_ run: LoadRun) {
        var opened: [(slot: ContainerStoreSlot, store: any PersistentStore)] = []
        do {
            if let setupError { throw setupError }
            for (index, description) in storeDescriptions.enumerated() {
                let loader = StoreLoader(
                    description: description, index: index, count: storeDescriptions.count, model: model,
                    versions: versionedModel,
                    migrator: migrator, registry: registry,
                    report: { [weak self] step in self?.report(step, in: run) },
                    isCancelled: { run.isCancelled }
                )
                opened.append((slots[index], try loader.load()))
                report(
                    LoadProgress(
                        store: description.url, storeIndex: index, storeCount: storeDescriptions.count, phase: .opened,
                        completed: 1, total: 1), in: run)
            }
            if run.isCancelled {
                throw StrataError(
                    .cancelled,
                    "loading the stores of container '\(name)' was cancelled after every store was opened; each is at model version '\(model.versionIdentifier)', and loading again opens them",
                    location: ["container": name, "modelVersion": model.versionIdentifier])
            }
            for (slot, store) in opened {
                slot.attach(store)
                coordinator.refreshCapabilities(of: slot)
            }
            startWatchingRemoteChanges()
            finish(run, error: nil)
        } catch {
            for (_, store) in opened { try? store.close() }
            let failure =
                error as? StrataError
                ?? StrataError(
                    .internalInconsistency,
                    "loading the stores of container '\(name)' failed with an error that is not a StrataError",
                    underlying: "\(error)")
            for slot in slots {
                slot.markFailed(failure)
                coordinator.refreshCapabilities(of: slot)
            }
            finish(run, error: failure)
        }
    }

    /// Shows `step` in the run's `Progress` and in every progress sequence.
    private func report(_ step: LoadProgress, in run: LoadRun) {
        run.show(step)
        let continuations = loading.withLock { Array($0.streams.values) }
        for continuation in continuations { continuation.yield(step) }
    }

    /// Ends `run`: sets the state, ends the progress sequences, tells every waiting caller.
    private func finish(_ run: LoadRun, error: StrataError?) {
        let continuations = loading.withLock { s -> [AsyncStream<LoadProgress>.Continuation] in
            s.state = error.map(ContainerState.failed) ?? .ready
            s.run = nil
            defer { s.streams.removeAll() }
            return Array(s.streams.values)
        }
        if error == nil {
            let progress = run.progress
            progress.completedUnitCount = progress.totalUnitCount
        }
        for continuation in continuations { continuation.finish() }
        for waiter in run.takeWaiters() { waiter(error) }
    }
}
