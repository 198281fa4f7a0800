package io.github.redislock.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.redislock.RedisLockClient;
import io.github.redislock.internal.DefaultRedisLockClient;
import io.github.redislock.internal.HeldLock;
import io.github.redislock.internal.LockEngine;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.lang.Nullable;

/**
 * The {@code locks} Actuator endpoint: which locks the threads of this instance hold
 * (name, key, thread, hold count, since when, lease, what Redis says is left of it,
 * fencing token) and how many threads wait for each lock. Read-only; forcing a lock open
 * is {@link ReleasingLocksEndpoint}, which has to be switched on.
 *
 * @since 0.2.0
 */
@Endpoint(id = "locks")
public class LocksEndpoint {

	private final RedisLockClient client;

	/**
	 * Creates the endpoint.
	 * @param client the client whose locks it shows
	 */
	public LocksEndpoint(RedisLockClient client) {
		this.client = client;
	}

	/** Lists the locks this instance holds and waits for. */
	@ReadOperation
	public LocksDescriptor locks() {
		if (!(this.client instanceof DefaultRedisLockClient defaultClient)) {
			return new LocksDescriptor(this.client.toString(), List.of(), Map.of(),
					"Not a client built by RedisLockClient.builder(); nothing to show");
		}
		LockEngine engine = defaultClient.engine();
		List<HeldLock> held = engine.heldLocks();
		List<Long> remaining = null;
		String redisError = null;
		try {
			remaining = engine.remainingLeaseMillis(held.stream().map(HeldLock::key).toList());
		}
		catch (RuntimeException ex) {
			redisError = "Could not read the remaining leases: " + ex.getMessage();
		}
		List<HeldLockDescriptor> descriptors = new ArrayList<>(held.size());
		for (int i = 0; i < held.size(); i++) {
			descriptors.add(HeldLockDescriptor.of(held.get(i), (remaining != null) ? remaining.get(i) : null));
		}
		return new LocksDescriptor(this.client.toString(), descriptors, engine.waitingThreadsByLock(), redisError);
	}

	RedisLockClient client() {
		return this.client;
	}

	/**
	 * The endpoint's answer.
	 *
	 * @param client the client
	 * @param held the locks held by this instance's threads, by name
	 * @param waiting how many of this instance's threads wait for each lock, by name
	 * @param redisError why the remaining leases are missing, if they are
	 */
	public record LocksDescriptor(String client, List<HeldLockDescriptor> held, Map<String, Integer> waiting,
			@Nullable String redisError) {
	}

	/**
	 * One thread's hold on one lock.
	 *
	 * @param name the lock's name
	 * @param key its Redis key
	 * @param thread the holding thread
	 * @param holdCount how many times the thread holds it
	 * @param heldSince when the thread first acquired it (ISO-8601)
	 * @param leaseMs the lease it was taken with, in milliseconds
	 * @param remainingLeaseMs what Redis says is left of the lease: -2 when the lock is
	 * gone, -1 without expiry, {@code null} when Redis could not be asked
	 * @param watchdog whether the watchdog renews the lease
	 * @param fencingToken the hold's fencing token
	 */
	public record HeldLockDescriptor(String name, String key, String thread, int holdCount, String heldSince,
			long leaseMs, @Nullable Long remainingLeaseMs, boolean watchdog, long fencingToken) {

		static HeldLockDescriptor of(HeldLock lock, @Nullable Long remainingLeaseMs) {
			return new HeldLockDescriptor(lock.name(), lock.key(), lock.thread(), lock.holdCount(),
					lock.heldSince().toString(), lock.lease().toMillis(), remainingLeaseMs, lock.watchdog(),
					lock.fencingToken());
		}

	}

}
