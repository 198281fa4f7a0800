package io.github.redislock.internal;

import java.util.List;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * The Redis names that belong to one lock. The lock key wraps the name in braces, a
 * cluster hash tag, and the release channel starts with the same tag; the fencing counter
 * is the one of the lock's slot. So every key a script touches is in one slot and the
 * lock works on Redis Cluster.
 *
 * @param name the lock's name
 * @param lockKey the hash holding owner and hold count
 * @param fenceKey the counter fencing tokens come from, shared by all names in the slot
 * @param channel where a release is published
 */
record LockKeys(String name, String lockKey, String fenceKey, String channel) {

	static LockKeys of(String keyPrefix, String name) {
		String lockKey = keyPrefix + "{" + name + "}";
		int slot = ClusterSlotHashUtil.calculateSlot(lockKey);
		return new LockKeys(name, lockKey, keyPrefix + "fence:{" + SlotTags.tagFor(slot) + "}", lockKey + ":released");
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

	List<String> lockAndFence() {
		return List.of(this.lockKey, this.fenceKey);
	}

	List<String> lockOnly() {
		return List.of(this.lockKey);
	}

}
