package io.github.redislock.benchmark;

/**
 * One turn of a contending thread: acquire the lock, record the gap since the previous
 * holder of the same name released, run the critical section (a GET and a SET in Redis, a
 * non-atomic counter), release.
 */
final class ContentionStep implements TimedLoop.Step {

	static final String LOCK_NAME = "bench:contended";

	private final LockLibrary locks;

	private final SharedCounter shared;

	private final CriticalSection section;

	private final String name;

	// the gap is measured only when every thread contends for one name
	private final boolean measuresGap;

	ContentionStep(LockLibrary locks, SharedCounter shared, CriticalSection section, String name, boolean measuresGap) {
		this.locks = locks;
		this.shared = shared;
		this.section = section;
		this.name = name;
		this.measuresGap = measuresGap;
	}

	@Override
	public long run(boolean measuring) {
		this.locks.lock(this.name);
		long lastRelease = this.measuresGap ? this.shared.lastRelease() : 0;
		long gap = (lastRelease != 0) ? System.nanoTime() - lastRelease : -1;
		this.section.run(this.name);
		if (this.measuresGap) {
			this.shared.released(System.nanoTime());
		}
		this.locks.unlock(this.name);
		return gap;
	}

}
