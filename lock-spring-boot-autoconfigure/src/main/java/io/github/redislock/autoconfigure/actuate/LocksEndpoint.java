package io.github.redislock.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redislock.RedisLockClient;
import io.github.redislock.internal.FencingCounter;
import io.github.redislock.internal.HeldLock;
import io.github.redislock.internal.LockInspector;
import io.github.redislock.internal.KindState;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.jspecify.annotations.Nullable;

/**
 * The {@code locks} Actuator endpoint: which locks the threads and handles of this
 * instance hold (name, key, owner, thread, hold count, since when, lease, what Redis says
 * is left of it, fencing token) and how many callers wait for each lock; and, for one
 * named lock, who holds it on any instance. Read-only; forcing a lock open is
 * {@link ReleasingLocksEndpoint}, which has to be switched on.
 *
 * @since 0.1.0
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
		LockInspector inspector = LockInspector.of(this.client).orElse(null);
		if (inspector == null) {
			return new LocksDescriptor(this.client.toString(), List.of(), Map.of(),
					"Not a client built by RedisLockClient.builder(); nothing to show");
		}
		List<HeldLock> held = inspector.heldLocks();
		List<Long> remaining = null;
		String redisError = null;
		try {
			remaining = inspector.remainingLeaseMillis(held.stream().map(HeldLock::key).toList());
		}
		catch (RuntimeException ex) {
			redisError = "Could not read the remaining leases: " + ex.getMessage();
		}
		List<HeldLockDescriptor> descriptors = new ArrayList<>(held.size());
		for (int i = 0; i < held.size(); i++) {
			descriptors
				.add(HeldLockDescriptor.of(held.get(i), (remaining != null) ? heldLease(remaining.get(i)) : null));
		}
		return new LocksDescriptor(this.client.toString(), descriptors, inspector.waitingByLock(), redisError);
	}

	/**
	 * Describes one lock name as Redis has it, whoever holds it: each kind's lock of the
	 * name that is taken or waited for, read by its kind (holders, marked when they are
	 * threads of this instance, fencing token, remaining lease), and what this instance's
	 * threads hold of it and wait for.
	 * @param name the lock's name; a name with '/' takes several path segments
	 */
	@ReadOperation
	@Nullable public LockDescriptor lock(@Selector(match = Match.ALL_REMAINING) String[] name) {
		LockInspector inspector = LockInspector.of(this.client).orElse(null);
		if (inspector == null) {
			return null;
		}
		String lockName = String.join("/", name);
		List<KindState> states = inspector.kindStates(lockName);
		Map<String, KindState> byKey = new HashMap<>();
		states.forEach((state) -> byKey.put(state.key(), state));
		// each hold's lease as its own kind reads it, as the list of held locks shows it
		List<HeldLockDescriptor> heldHere = inspector.heldLocks()
			.stream()
			.filter((held) -> held.name().equals(lockName))
			.map((held) -> HeldLockDescriptor.of(held, heldLease(byKey.get(held.key()), held.owner())))
			.toList();
		// the key, token and lease at the top are the first taken kind's, in the
		// registry's order, so that a name held only as a read lock or a permit never
		// reads as taken with no lease; when none is taken, the name's own lock's (the
		// registry's first kind, whose key is the name's). The holders are every kind's.
		KindState own = states.stream().filter(KindState::locked).findFirst().orElse(states.get(0));
		return new LockDescriptor(lockName, own.key(), states.stream().anyMatch(KindState::locked),
				holders(inspector, everyHolder(states)), own.keptForNobody(), own.fencingToken(), lease(own), heldHere,
				inspector.waitingByLock().getOrDefault(lockName, 0),
				states.stream().filter(KindState::active).map((state) -> KindDescriptor.of(inspector, state)).toList(),
				FencingCounterDescriptor.of(inspector.fencingCounter(lockName)));
	}

	// who holds a lock of the name, of any kind: an owner that holds several kinds of it
	// counts its holds of all of them
	private static Map<String, Integer> everyHolder(List<KindState> states) {
		Map<String, Integer> holders = new LinkedHashMap<>();
		states.forEach((state) -> state.holders().forEach((owner, holds) -> holders.merge(owner, holds, Integer::sum)));
		return holders;
	}

	// what is left of a lock's lease, none when it is free
	private static @Nullable Long lease(KindState state) {
		return (state.remainingLeaseMillis() != LockInspector.NO_KEY) ? state.remainingLeaseMillis() : null;
	}

	// who holds, by owner id, marked when they are this instance's
	private static List<HolderDescriptor> holders(LockInspector inspector, Map<String, Integer> holdCounts) {
		return holdCounts.entrySet()
			.stream()
			.map((holder) -> new HolderDescriptor(holder.getKey(), holder.getValue(),
					inspector.isOwnedHere(holder.getKey())))
			.toList();
	}

	// Redis' PTTL answers -2 for a key that is gone: for a lock this instance still
	// counts as held, nothing is left of the lease
	private static long heldLease(long remainingLeaseMillis) {
		return (remainingLeaseMillis != LockInspector.NO_KEY) ? remainingLeaseMillis : 0;
	}

	// a kind whose holders each have a lease of their own (the semaphore) tells each
	// one's
	// in its details, under "leases" by owner; the key's lease is the longest of them
	private static long heldLease(@Nullable KindState state, String owner) {
		if (state == null) {
			return 0;
		}
		if (state.details().get("leases") instanceof Map<?, ?> leases) {
			return (leases.get(owner) instanceof Number left) ? left.longValue() : 0;
		}
		return heldLease(state.remainingLeaseMillis());
	}

	RedisLockClient client() {
		return this.client;
	}

	/**
	 * One lock as Redis has it.
	 *
	 * @param name the lock's name
	 * @param key its Redis key
	 * @param locked whether a lock of the name is taken, of any kind (see {@code kinds}):
	 * held, or kept for nobody
	 * @param holders who holds a lock of the name, of any kind, on any instance (an owner
	 * that holds several kinds counts its holds of all)
	 * @param keptForNobody whether its exclusive lock stays taken, with no holder, until
	 * the minimum of a {@code holdAtLeast} release has passed ({@code remainingLeaseMs}
	 * is what is left)
	 * @param fencingToken the exclusive lock's holder's fencing token, {@code null} when
	 * free
	 * @param remainingLeaseMs what is left of the exclusive lock's lease in milliseconds;
	 * {@code null} when it is free, -1 when its key has no expiry
	 * @param heldHere what this instance's threads hold of it, of every kind, each with
	 * what is left of its lease as its kind reads it
	 * @param waitingHere how many of this instance's threads wait for it, of every kind
	 * @param kinds every kind's lock of the name that is taken or waited for, each read
	 * by its kind and shown alike (exclusive, read/write, fair, and any kind added later)
	 * @param fencingCounter the counter the name's next token comes from, and how far it
	 * is ahead of the Redis server's clock; {@code null} when not read
	 */
	public record LockDescriptor(String name, String key, boolean locked, List<HolderDescriptor> holders,
			boolean keptForNobody, @Nullable Long fencingToken, @Nullable Long remainingLeaseMs,
			List<HeldLockDescriptor> heldHere, int waitingHere, List<KindDescriptor> kinds,
			@Nullable FencingCounterDescriptor fencingCounter) {

	}

	/**
	 * One kind's lock of a name as Redis has it, read by its kind: the same view for
	 * every kind.
	 *
	 * @param mode the kind: {@code exclusive}, {@code readWrite}, {@code fair} or
	 * {@code semaphore}
	 * @param key its hash's Redis key
	 * @param locked whether it is taken: held, or kept for nobody
	 * @param holders who holds it, on any instance
	 * @param keptForNobody whether it stays taken, with no holder, until the minimum of a
	 * {@code holdAtLeast} release has passed
	 * @param fencingToken the current holders' fencing token, {@code null} when free
	 * @param remainingLeaseMs what is left of the (longest) lease in milliseconds;
	 * {@code null} when free, -1 when its key has no expiry
	 * @param waiting waiters Redis knows of, on any instance (a fair lock's queue, the
	 * writers waiting); 0 for a kind whose waiters leave no mark
	 * @param details what only this kind has (a read/write lock's {@code readers} by
	 * owner, {@code writer}, {@code writeHolds}, {@code readToken} and
	 * {@code writeToken}; a semaphore's {@code taken} permits and {@code leases} by
	 * owner)
	 * @since 0.1.0
	 */
	public record KindDescriptor(String mode, String key, boolean locked, List<HolderDescriptor> holders,
			boolean keptForNobody, @Nullable Long fencingToken, @Nullable Long remainingLeaseMs, long waiting,
			Map<String, Object> details) {

		static KindDescriptor of(LockInspector inspector, KindState state) {
			return new KindDescriptor(state.mode(), state.key(), state.locked(),
					LocksEndpoint.holders(inspector, state.holders()), state.keptForNobody(), state.fencingToken(),
					lease(state), state.waiting(), state.details());
		}

	}

	/**
	 * The fencing counter a name's tokens come from, of every kind, read with the Redis
	 * server's clock. The next token is the larger of the counter + 1 and the clock, so
	 * the lead is normally below 0 (the clock has passed the last token). A lead far
	 * above 0 means tokens were reserved in blocks faster than the clock moves (threads
	 * of a client queueing for locks of the slot) or the server's clock stepped back.
	 * After a failover tokens keep increasing if the promoted replica's clock has passed
	 * the old primary's counter: with a lead above 0, it must be that far ahead of the
	 * old primary's clock.
	 *
	 * @param key the counter's key, shared by every name in the same cluster slot
	 * @param value the last token the slot issued or reserved, {@code null} when there is
	 * no counter (nothing acquired yet, or Redis lost it: the next token is the clock)
	 * @param leadMicros how far the counter is ahead of the server's clock, in
	 * microseconds; {@code null} without a counter
	 * @since 0.1.0
	 */
	public record FencingCounterDescriptor(String key, @Nullable Long value, @Nullable Long leadMicros) {

		static FencingCounterDescriptor of(FencingCounter counter) {
			return new FencingCounterDescriptor(counter.key(), counter.value(), counter.leadMicros());
		}

	}

	/**
	 * One holder of a lock, on any instance.
	 *
	 * @param owner the owner id: {@code <client id>:<thread id>} for a thread,
	 * {@code <client id>:h<n>} for a {@link io.github.redislock.LockHandle}
	 * @param holdCount how many times it holds the lock
	 * @param thisInstance whether it is a thread of this instance
	 */
	public record HolderDescriptor(String owner, int holdCount, boolean thisInstance) {
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
	 * One thread's or handle's hold on one lock.
	 *
	 * @param name the lock's name
	 * @param key its Redis key
	 * @param owner the owner's id, as in {@link HolderDescriptor#owner()}
	 * @param handle whether a {@link io.github.redislock.LockHandle} holds it, rather
	 * than a thread
	 * @param thread the holding thread; for a handle, the thread that acquired it
	 * @param holdCount how many times the thread holds it
	 * @param heldSince when the thread first acquired it (ISO-8601)
	 * @param leaseMs the lease it was taken with, in milliseconds
	 * @param remainingLeaseMs what Redis says is left of the lease: 0 when the lock is
	 * gone (the lease was lost), -1 without expiry, {@code null} when Redis could not be
	 * asked
	 * @param watchdog whether the watchdog renews the lease
	 * @param fencingToken the hold's fencing token
	 * @param mode which lock of the name: {@code exclusive}, {@code read} or
	 * {@code write} (of its read/write lock), {@code fair}
	 */
	public record HeldLockDescriptor(String name, String key, String owner, boolean handle, String thread,
			int holdCount, String heldSince, long leaseMs, @Nullable Long remainingLeaseMs, boolean watchdog,
			long fencingToken, String mode) {

		static HeldLockDescriptor of(HeldLock lock, @Nullable Long remainingLeaseMs) {
			return new HeldLockDescriptor(lock.name(), lock.key(), lock.owner(), lock.handle(), lock.thread(),
					lock.holdCount(), lock.heldSince().toString(), lock.lease().toMillis(), remainingLeaseMs,
					lock.watchdog(), lock.fencingToken(), lock.mode());
		}

	}

}
