import PremainModel

#if canImport(Glibc)
import Glibc
#endif

/// A dictionary shared by worker threads that mostly read it: a `pthread_rwlock_t` lets
/// readers run side by side (Swift's `Mutex` serializes them, and its priority-inheritance
/// futex is slow under contention).
final class SharedTable<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private var storage: [Key: Value] = [:]
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// The value for `key`, or `nil` when absent.
    func value(_ key: Key) -> Value? {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return storage[key]
    }

    /// Stores `value` unless another thread stored one first; returns the stored value.
    @discardableResult
    func insertIfAbsent(_ key: Key, _ value: Value) -> Value {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        if let existing = storage[key] { return existing }
        storage[key] = value
        return value
    }

    /// Changes the value for `key` in place (nil when absent).
    func update(_ key: Key, _ body: (inout Value?) -> Void) {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        body(&storage[key])
    }
}
