package io.github.redislock.internal;

import java.util.List;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * The Redis names that belong to one lock, and its {@link LockKind}, which lays them out
 * ({@link LockKind#keys}). The lock key wraps the name in braces, a cluster hash tag, and
 * every other key and the release channel start with the same tag; the fencing counter is
 * the one of the lock's slot. So every key a script touches is in one slot and the lock
 * works on Redis Cluster.
 * <p>
 * Immutable; it keeps its keys encoded for the scripts, and a client reuses the keys of
 * the names it locked last ({@link LockKeysCache}): working out the fencing counter's
 * slot and the key bytes cost more than the rest of an uncontended acquisition's client
 * work.
 */
final class LockKeys {

	private final String name;

	private final String lockKey;

	private final String channel;

	private final LockKind kind;

	private final String id;

	private final List<String> scriptKeys;

	private final byte[][] scriptKeyBytes;

	private final byte[][] lockKeyBytes;

	private final byte[] channelBytes;

	/**
	 * @param name the lock's name
	 * @param lockKey the hash holding owners and hold counts
	 * @param channel where a release this lock's waiters wait for is published
	 * @param kind what acquiring and releasing mean
	 * @param id what this client knows the lock by (its holds, waiters and settlements):
	 * the lock key, unless two kinds share it (a read/write lock's read and write side)
	 * @param scriptKeys the keys the kind's acquire script is given, the fencing counter
	 * (shared by all names in the slot) last
	 */
	private LockKeys(String name, String lockKey, String channel, LockKind kind, String id, List<String> scriptKeys) {
		this.name = name;
		this.lockKey = lockKey;
		this.channel = channel;
		this.kind = kind;
		this.id = id;
		this.scriptKeys = scriptKeys;
		this.scriptKeyBytes = new byte[scriptKeys.size()][];
		for (int i = 0; i < this.scriptKeyBytes.length; i++) {
			this.scriptKeyBytes[i] = ScriptCalls.bytes(scriptKeys.get(i));
		}
		this.lockKeyBytes = new byte[][] { ScriptCalls.bytes(lockKey) };
		this.channelBytes = ScriptCalls.bytes(channel);
	}

	/**
	 * The keys of a lock whose kind keeps them in the order its scripts want: a kind's
	 * {@link LockKind#keys} builds them from {@link #lockKey(String, String, String)} and
	 * {@link #fenceKey(String, String)}.
	 */
	static LockKeys of(String name, String lockKey, String channel, LockKind kind, String id, List<String> scriptKeys) {
		return new LockKeys(name, lockKey, channel, kind, id, scriptKeys);
	}

	/**
	 * The keys of a kind whose scripts touch its one key (the hash or set named by
	 * {@code suffix}) and the slot's fencing counter, and whose releases are published on
	 * that key's {@code :released} channel: the exclusive lock and the semaphore.
	 */
	static LockKeys single(LockKind kind, String keyPrefix, String name, String suffix) {
		String lockKey = lockKey(keyPrefix, name, suffix);
		return of(name, lockKey, lockKey + ":released", kind, lockKey, List.of(lockKey, fenceKey(keyPrefix, lockKey)));
	}

	/**
	 * The hash of the named lock of a kind: the name in braces (its cluster hash tag;
	 * hashed when the name has braces or is very long, see
	 * {@link LockNames#hashTag(String)}), then the kind's suffix, empty for the exclusive
	 * lock.
	 */
	static String lockKey(String keyPrefix, String name, String suffix) {
		return keyPrefix + "{" + LockNames.hashTag(name) + "}" + suffix;
	}

	/** The fencing counter shared by every lock in the lock key's cluster slot. */
	static String fenceKey(String keyPrefix, String lockKey) {
		int slot = ClusterSlotHashUtil.calculateSlot(lockKey);
		return keyPrefix + "fence:{" + SlotTags.tagFor(slot) + "}";
	}

	/**
	 * The name metrics and observations tag the lock with: the name up to its first
	 * {@code ':'}, so that {@code order:42} and {@code order:43} share meters.
	 */
	String tagName() {
		return tagName(this.name);
	}

	static String tagName(String name) {
		int colon = name.indexOf(':');
		return (colon > 0) ? name.substring(0, colon) : name;
	}

	String name() {
		return this.name;
	}

	String lockKey() {
		return this.lockKey;
	}

	String channel() {
		return this.channel;
	}

	LockKind kind() {
		return this.kind;
	}

	String id() {
		return this.id;
	}

	List<String> scriptKeys() {
		return this.scriptKeys;
	}

	/** {@link #scriptKeys()} encoded; not to be changed. */
	byte[][] scriptKeyBytes() {
		return this.scriptKeyBytes;
	}

	/** The lock key alone, encoded as a script's keys; not to be changed. */
	byte[][] lockKeyBytes() {
		return this.lockKeyBytes;
	}

	/**
	 * {@link #channel()} encoded, the last argument of a script that announces a release
	 * (a channel is an argument, never a key: see {@link ScriptCalls}); not to be
	 * changed.
	 */
	byte[] channelBytes() {
		return this.channelBytes;
	}

	/** The owner's field in the lock's hash: its hold count. */
	String field(Owner owner) {
		return this.kind.field(owner);
	}

	@Override
	public String toString() {
		return this.kind.mode() + " lock '" + this.name + "' (key '" + this.lockKey + "')";
	}

}
