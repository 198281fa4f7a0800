package io.github.redislock.model;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.github.redislock.model.Itf.number;
import static io.github.redislock.model.Itf.positive;
import static io.github.redislock.model.Itf.record;

/**
 * The states of model/fair_lock.qnt's traces (see {@link Trace}).
 */
final class FairTrace {

	private FairTrace() {
	}

	/**
	 * What the model holds after a step.
	 *
	 * @param lock the lock hash
	 * @param queue the queue and the waiters' heartbeats
	 * @param clock the fencing clock key, 0 when absent
	 * @param now the model's time, abstract milliseconds
	 * @param last the step that led here
	 * @param actionTaken the action quint's --mbt metadata names, for messages
	 */
	record State(Lock lock, Queue queue, long clock, long now, Step last,
			String actionTaken) implements Replay.ModelState {

		static State of(Map<String, Object> vars) {
			return new State(Lock.of(record(vars.get("lock"))), Queue.of(record(vars.get("queue"))),
					number(vars.get("clock")), number(vars.get("now")), Step.of(record(vars.get("last"))),
					Itf.actionTaken(vars));
		}

		@Override
		public String stepKind() {
			return this.last.kind();
		}

	}

	/**
	 * The fair lock's hash (see the Lock type of the model).
	 *
	 * @param exists whether the key exists
	 * @param expiresAt its absolute expiry, abstract milliseconds
	 * @param holds owner fields and their counts (owners holding nothing left out)
	 * @param token field "token"
	 * @param holdAtLeast whether field "hold-at-least" is there
	 */
	record Lock(boolean exists, long expiresAt, Map<String, Long> holds, long token, boolean holdAtLeast) {

		static Lock of(Map<String, Object> fields) {
			return new Lock((Boolean) fields.get("exists"), number(fields.get("expiresAt")),
					positive(fields.get("holds")), number(fields.get("token")), (Boolean) fields.get("holdAtLeast"));
		}

	}

	/**
	 * The queue (KEYS[2]) and the heartbeats (KEYS[3]): the same members, the same
	 * expiry.
	 *
	 * @param tickets each queued owner's ticket (its score in the queue)
	 * @param alive each queued owner's score in the heartbeats, absolute abstract ms
	 * @param expiresAt both keys' expiry, abstract milliseconds (0 when they do not
	 * exist)
	 */
	record Queue(Map<String, Long> tickets, Map<String, Long> alive, long expiresAt) {

		static Queue of(Map<String, Object> fields) {
			Map<String, Long> tickets = positive(fields.get("tickets"));
			Map<String, Long> alive = new LinkedHashMap<>();
			Itf.map(fields.get("alive")).forEach((owner, at) -> {
				if (tickets.containsKey(owner.toString())) {
					alive.put(owner.toString(), number(at));
				}
			});
			return new Queue(tickets, alive, number(fields.get("expiresAt")));
		}

		boolean exists() {
			return !this.tickets.isEmpty();
		}

	}

	/**
	 * A step (see the Step type of the model).
	 *
	 * @param kind acquire, release, withdraw, heartbeat, extend, renew, crash, tick,
	 * dataLoss, snapshot, failover
	 * @param owner the owner that ran the script
	 * @param client the client of a heartbeat or a crash
	 * @param owners the owners a heartbeat renews
	 * @param holds the holds the owner believed it had (acquire, release)
	 * @param lease the lease given, abstract milliseconds
	 * @param waits whether the acquirer waits
	 * @param keep the minimum hold a release keeps the lock for
	 * @param ms how long a tick (or a restart) lasts
	 * @param reply the script's reply in the model
	 * @param missing the heartbeat's reply: the owners it found no longer queued
	 * @param lost whether the reply never reached the owner
	 * @param published the owner the script's message named, "" when it published none
	 */
	record Step(String kind, String owner, String client, List<String> owners, long holds, long lease, boolean waits,
			long keep, long ms, long reply, List<String> missing, boolean lost, String published) {

		static Step of(Map<String, Object> fields) {
			return new Step((String) fields.get("kind"), (String) fields.get("owner"), (String) fields.get("client"),
					Itf.strings(fields.get("owners")), number(fields.get("holds")), number(fields.get("lease")),
					(Boolean) fields.get("waits"), number(fields.get("keep")), number(fields.get("ms")),
					number(fields.get("reply")), Itf.strings(fields.get("missing")), (Boolean) fields.get("lost"),
					(String) fields.get("published"));
		}

		@Override
		public String toString() {
			String lost = this.lost ? " [reply lost]" : "";
			return switch (this.kind) {
				case "acquire" -> "acquire(owner=%s, holds=%d, lease=%d, waits=%s)%s".formatted(this.owner, this.holds,
						this.lease, this.waits, lost);
				case "release" ->
					"release(owner=%s, holds=%d, keep=%d)%s".formatted(this.owner, this.holds, this.keep, lost);
				case "withdraw" -> "withdraw(owner=%s)".formatted(this.owner);
				case "heartbeat" -> "heartbeat(client=%s, owners=%s)".formatted(this.client, this.owners);
				case "extend", "renew" -> "%s(owner=%s, lease=%d)".formatted(this.kind, this.owner, this.lease);
				case "crash" -> "crash(client=%s)".formatted(this.client);
				case "tick", "dataLoss", "failover" -> "%s(%d ms)".formatted(this.kind, this.ms);
				default -> this.kind + "()";
			};
		}

	}

}
