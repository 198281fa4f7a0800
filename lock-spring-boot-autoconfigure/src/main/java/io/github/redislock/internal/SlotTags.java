package io.github.redislock.internal;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * One short hash tag for each of the 16384 cluster slots, so that a key can be placed in
 * the slot of another key. Fencing counters use it: one counter per slot instead of one
 * per lock name keeps their storage at most 16384 small keys however many names are
 * locked, and a counter shared by all names of a slot still gives every name strictly
 * increasing tokens.
 */
final class SlotTags {

	private static final String[] TAGS = computeTags();

	private SlotTags() {
	}

	static String tagFor(int slot) {
		return TAGS[slot];
	}

	// Counting up in base 36 fills every slot after about 170k candidates (a few
	// milliseconds); the result is the same on every JVM, so all clients agree on the
	// counter of each slot.
	private static String[] computeTags() {
		String[] tags = new String[ClusterSlotHashUtil.SLOT_COUNT];
		int missing = tags.length;
		for (long n = 0; missing > 0; n++) {
			String candidate = Long.toString(n, Character.MAX_RADIX);
			int slot = ClusterSlotHashUtil.calculateSlot(candidate);
			if (tags[slot] == null) {
				tags[slot] = candidate;
				missing--;
			}
		}
		return tags;
	}

}
