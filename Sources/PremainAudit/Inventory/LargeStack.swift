#if canImport(Glibc)
    import Glibc
#endif

/// Runs work whose recursion depth the input controls (demangling a crafted 100 KB name) on a
/// thread of its own with a large stack, so that it cannot overflow the caller's (a worker
/// thread of a folder audit has far less than the main thread's 8 MiB).
enum LargeStack {
    /// Stack of the worker thread: 64 MiB of address space, touched only as deep as it goes.
    static let size = 64 << 20

    private final class Job {
        let work: () -> Void
        init(_ work: @escaping () -> Void) { self.work = work }
    }

    private final class Slot<T> {
        var value: T?
    }

    /// `body()` computed on a new thread with a `size` stack; `nil` when no thread could be
    /// made.
    static func run<T>(_ body: () -> T) -> T? {
        withoutActuallyEscaping(body) { body -> T? in
            let slot = Slot<T>()
            let job = Unmanaged.passRetained(Job { slot.value = body() })
            var attributes = pthread_attr_t()
            guard pthread_attr_init(&attributes) == 0 else {
                job.release()
                return nil
            }
            defer { pthread_attr_destroy(&attributes) }
            _ = pthread_attr_setstacksize(&attributes, size)
            var thread = pthread_t()
            let started = pthread_create(
                &thread, &attributes,
                { raw in
                    guard let raw else { return nil }
                    Unmanaged<Job>.fromOpaque(raw).takeUnretainedValue().work()
                    return nil
                }, job.toOpaque())
            guard started == 0 else {
                job.release()
                return nil
            }
            pthread_join(thread, nil)
            job.release()
            return slot.value
        }
    }
}
