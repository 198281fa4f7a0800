package io.github.redislock.benchmark;

/**
 * One turn of a contending thread: acquire the shared lock, record the gap since the
 * previous holder released, bump the non-atomic counter, release.
 */
final class ContentionStep implements TimedLoop.Step {

	static final String LOCK_NAME = "bench:contended";

	private final LockLibrary locks;

	private final SharedCounter shared;

	private final String name;

	ContentionStep(LockLibrary locks, SharedCounter shared, String name) {
		this.locks = locks;
		this.shared = shared;
		this.name = name;
	}

	@Override
	public long run(boolean measuring) {
		this.locks.lock(this.name);
		long lastRelease = this.shared.lastRelease();
		long gap = (lastRelease != 0) ? System.nanoTime() - lastRelease : -1;
		this.shared.incrementWithoutAtomicity();
		this.shared.released(System.nanoTime());
		this.locks.unlock(this.name);
		return gap;
	}

}
