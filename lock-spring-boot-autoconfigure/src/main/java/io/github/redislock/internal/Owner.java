package io.github.redislock.internal;

import org.jspecify.annotations.Nullable;

/**
 * Who holds a lock, chosen once where a caller enters the API and passed down as a value;
 * its id is the field of the lock's hash in Redis. Two kinds:
 * <ul>
 * <li>a <em>thread</em> ({@code <client id>:<thread id>}): re-entrant, so every
 * acquisition by the same thread adds a hold; its holds are dropped when the thread
 * ends;</li>
 * <li>a <em>handle</em> ({@code <client id>:h<n>}): a fresh owner per acquisition, so it
 * never re-enters, and whoever has the handle releases it, from any thread.</li>
 * </ul>
 */
final class Owner {

	private final String id;

	// the owning thread, or for a handle the thread that acquired it (for messages)
	private final Thread thread;

	private final boolean handle;

	// the id as a script argument: every command of the owner sends it
	private final byte[] argument;

	private Owner(String id, Thread thread, boolean handle) {
		this.id = id;
		this.argument = ScriptCalls.bytes(id);
		this.thread = thread;
		this.handle = handle;
	}

	static Owner thread(String clientId, Thread thread) {
		return new Owner(clientId + ":" + thread.getId(), thread, false);
	}

	static Owner handle(String clientId, long sequence) {
		return new Owner(clientId + ":h" + sequence, Thread.currentThread(), true);
	}

	/** The owner's field in the lock's hash. */
	String id() {
		return this.id;
	}

	/** {@link #id()} as a script argument; not to be changed. */
	byte[] argument() {
		return this.argument;
	}

	boolean isHandle() {
		return this.handle;
	}

	/** The owning thread; for a handle, the thread that acquired it. */
	Thread thread() {
		return this.thread;
	}

	/**
	 * Whether this owner can no longer release what it holds: a thread that has ended. A
	 * handle's abandonment is noticed when it becomes unreachable, not here.
	 */
	boolean isGone() {
		return !this.handle && !this.thread.isAlive();
	}

	/** For messages: "thread 'main'" or "a handle acquired on thread 'main'". */
	String describe() {
		return this.handle ? "a handle acquired on thread '" + this.thread.getName() + "'"
				: "thread '" + this.thread.getName() + "'";
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof Owner owner && this.id.equals(owner.id);
	}

	@Override
	public int hashCode() {
		return this.id.hashCode();
	}

	@Override
	public String toString() {
		return this.id;
	}

}
