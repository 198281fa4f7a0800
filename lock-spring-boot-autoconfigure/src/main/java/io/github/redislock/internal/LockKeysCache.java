package io.github.redislock.internal;

/**
 * The {@link LockKeys} of the names one client locked last, so that locking the same name
 * again does not work its keys out again (string building, the cluster slot of the
 * fencing counter, encoding). A fixed number of places, each the last keys whose name and
 * type hash to it: bounded whatever the number of names, nothing to evict, and a name
 * that misses is worked out as without a cache.
 */
final class LockKeysCache {

	// a power of two; a few hundred small objects per client at most
	private static final int PLACES = 256;

	private final String keyPrefix;

	// Read and written without synchronization: an entry and its keys have only final
	// fields, so a thread that sees an entry sees all of it; a write lost to a race only
	// costs a later miss
	private final Entry[] places = new Entry[PLACES];

	LockKeysCache(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	/**
	 * The keys of the given type of lock of that name.
	 * @throws IllegalArgumentException when the name is not a valid lock name
	 */
	LockKeys get(LockType type, String name) {
		// null is refused with the message every entry point gives
		LockArguments.checkNotNull(name);
		int place = (name.hashCode() * 31 + type.ordinal()) & (PLACES - 1);
		Entry entry = this.places[place];
		if (entry != null && entry.type == type && entry.keys.name().equals(name)) {
			// its name was checked when it was made
			return entry.keys;
		}
		LockArguments.checkName(name);
		LockKeys keys = type.keys(this.keyPrefix, name);
		this.places[place] = new Entry(type, keys);
		return keys;
	}

	/**
	 * The keys of the lock of that name a request asks for: the cached keys when their
	 * kind is the request's (the same limit), else worked out with the request's kind.
	 * @throws IllegalArgumentException when the name is not a valid lock name
	 */
	LockKeys get(LockSpec spec, String name) {
		LockKeys keys = get(spec.type(), name);
		return (keys.kind() == spec.kind()) ? keys : spec.kind().keys(this.keyPrefix, name);
	}

	private record Entry(LockType type, LockKeys keys) {
	}

}
