package io.github.redislock.torture;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * What the JVMs of {@link TortureTests} share, in one memory-mapped file: the current
 * epoch (bumped by the test each time Redis loses its data, for the history's overlap
 * checks), and a handshake through which the test freezes a worker while one of its
 * threads is inside a critical section. In semaphore mode it also counts, per name, the
 * holders inside a critical section at the moment, for the test to compare with the
 * permits.
 *
 */
final class TortureStore implements AutoCloseable {

	/**
	 * The counter's write was accepted: it is now one more than the value read. (The
	 * counters themselves are {@link io.github.redislock.fencing.RedisFencedValues} in a
	 * Redis of their own, see {@link TortureWorker}.)
	 */
	static final char WRITTEN = 'W';

	/** The counter had accepted a write with a newer token: a stale holder. */
	static final char REJECTED = 'R';

	/**
	 * Nothing was written: semaphore holders leave the counter alone (and a lock holder
	 * whose write failed, which the worker reports as unexpected).
	 */
	static final char NOT_WRITTEN = 'N';

	private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

	private static final int MAX_WORKERS = 64;

	private static final int EPOCH = 0;

	private static final int PAUSE_STATE = 8;

	private static final int PAUSE_LEASE = PAUSE_STATE + 8 * MAX_WORKERS;

	private static final int NAMES = PAUSE_LEASE + 8 * MAX_WORKERS;

	private static final long IDLE = 0;

	private static final long REQUESTED = 1;

	private static final long CLAIMED = 2;

	private static final long HOLDING = 3;

	private final FileChannel channel;

	private final MappedByteBuffer memory;

	/** Per name: the holders inside now, and the most there were. */
	private final int inside;

	private TortureStore(Path file, int names) throws IOException {
		if (names < 1) {
			throw new IllegalArgumentException("At least one lock name, was " + names);
		}
		this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
				StandardOpenOption.WRITE);
		this.inside = NAMES;
		this.memory = this.channel.map(FileChannel.MapMode.READ_WRITE, 0, this.inside + 16L * names);
	}

	/** Opens (or creates, zeroed) the store in the given file. */
	static TortureStore open(Path file, int names) throws IOException {
		return new TortureStore(file, names);
	}

	/** The highest worker index the pause handshake supports, plus one. */
	static int maxWorkers() {
		return MAX_WORKERS;
	}

	long epoch() {
		return get(EPOCH);
	}

	/** Called by the test while no client can reach Redis, after it lost its data. */
	void nextEpoch() {
		LONGS.getAndAdd(this.memory, EPOCH, 1L);
	}

	/**
	 * Semaphore mode: one more holder of the name is inside its critical section. Atomic
	 * across the JVMs, because the holders of a semaphore are meant to be inside at once:
	 * what it counts is how many the semaphore let in.
	 * @return how many are inside now, this one included
	 */
	long enter(int name) {
		int at = this.inside + 16 * name;
		long inside = (long) LONGS.getAndAdd(this.memory, at, 1L) + 1;
		long most = get(at + 8);
		while (inside > most && !LONGS.compareAndSet(this.memory, at + 8, most, inside)) {
			most = get(at + 8);
		}
		return inside;
	}

	/** Semaphore mode: a holder of the name left its critical section. */
	void leave(int name) {
		LONGS.getAndAdd(this.memory, this.inside + 16 * name, -1L);
	}

	/** Semaphore mode: how many holders of the name are inside now. */
	long inside(int name) {
		return get(this.inside + 16 * name);
	}

	/** Semaphore mode: the most holders of the name that were ever inside at once. */
	long mostInside(int name) {
		return get(this.inside + 16 * name + 8);
	}

	/**
	 * Worker side: if the test asked to freeze this worker, tells it that the calling
	 * thread is inside a critical section with the given lease, and stays inside until
	 * the test has frozen and resumed the JVM.
	 */
	void holdIfPauseRequested(int worker, long leaseMillis) {
		int state = PAUSE_STATE + 8 * worker;
		if (get(state) != REQUESTED || !LONGS.compareAndSet(this.memory, state, REQUESTED, CLAIMED)) {
			return;
		}
		LONGS.setVolatile(this.memory, PAUSE_LEASE + 8 * worker, leaseMillis);
		LONGS.setVolatile(this.memory, state, HOLDING);
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (get(state) == HOLDING && System.nanoTime() < deadline) {
			LockSupport.parkNanos(1_000_000);
		}
	}

	/**
	 * Test side: asks the worker to report a thread inside a critical section, and waits
	 * for one at most the given time.
	 * @return the lease of that thread's lock in milliseconds (0 for a watchdog lease),
	 * or -1 if none came in time (the request is then withdrawn)
	 */
	long awaitHolderOf(int worker, Duration timeout) {
		int state = PAUSE_STATE + 8 * worker;
		LONGS.setVolatile(this.memory, state, REQUESTED);
		long deadline = System.nanoTime() + timeout.toNanos();
		while (get(state) != HOLDING) {
			if (System.nanoTime() > deadline && LONGS.compareAndSet(this.memory, state, REQUESTED, IDLE)) {
				return -1;
			}
			LockSupport.parkNanos(200_000);
		}
		return get(PAUSE_LEASE + 8 * worker);
	}

	/** Test side: lets the thread that reported itself leave its critical section. */
	void releaseHolderOf(int worker) {
		LONGS.setVolatile(this.memory, PAUSE_STATE + 8 * worker, IDLE);
	}

	@Override
	public void close() throws IOException {
		this.channel.close();
	}

	private long get(int offset) {
		return (long) LONGS.getVolatile(this.memory, offset);
	}

}
