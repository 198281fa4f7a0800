package io.github.redislock.internal;

import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

import org.jspecify.annotations.Nullable;

import io.github.redislock.RedisLockClient;

/**
 * The library's own clients, each with the {@link HandleAcquisitions} it handed over when
 * it was made, so that a reactive client built on one continues its acquisitions where
 * Redis answers (one thread hop per acquisition instead of two) without knowing the
 * client's class: any other {@link RedisLockClient} is found nowhere here and is used
 * through its public API.
 * <p>
 * A registry rather than a type test or a method on {@link RedisLockClient}: the
 * capability stays internal, the public interface does not grow a method only the library
 * can implement, and a wrapper around the library's client is honoured as a client of its
 * own. It costs one look-up per reactive client made, none per acquisition.
 */
final class OwnClients {

	// Weak both ways: an entry keeps neither the client alive nor what its acquisitions
	// reach (the lease-lost listeners may reference anything, the client too). The client
	// holds its acquisitions, so they live as long as it does.
	private static final Map<RedisLockClient, Entry> clients = Collections.synchronizedMap(new WeakHashMap<>());

	private OwnClients() {
	}

	/** Records the client's acquisitions; called once, when it is made. */
	static void register(RedisLockClient client, HandleAcquisitions acquisitions) {
		clients.put(client, new Entry(new WeakReference<>(client), new WeakReference<>(acquisitions)));
	}

	/**
	 * The acquisitions the client handed over, or {@code null} when it is not one of the
	 * library's own.
	 */
	static @Nullable HandleAcquisitions acquisitions(RedisLockClient client) {
		Entry entry = clients.get(client);
		// the same client, not one that declares itself equal to it (a wrapper might)
		return (entry != null && entry.client().get() == client) ? entry.acquisitions().get() : null;
	}

	private record Entry(WeakReference<RedisLockClient> client, WeakReference<HandleAcquisitions> acquisitions) {

	}

}
