package io.github.redislock.model;

import java.util.Map;
import java.util.TreeMap;

import static io.github.redislock.model.Itf.number;
import static io.github.redislock.model.Itf.record;

/**
 * The states of model/semaphore.qnt's traces (see {@link Trace}).
 */
final class SemaphoreTrace {

	private SemaphoreTrace() {
	}

	/**
	 * The owner id a handle has in Redis, as the library makes it: its client's id, "h"
	 * and its number ("a:h3"); a permit kept for nobody is "kept:" and that id.
	 * @param owner the owner (thread) that made the handle ("a:1")
	 */
	static String handleId(String owner, long handle) {
		return owner.substring(0, owner.indexOf(':') + 1) + "h" + handle;
	}

	/**
	 * What the model holds after a step.
	 *
	 * @param sem the semaphore's sorted set
	 * @param clock the fencing clock key, 0 when absent
	 * @param now the model's time, abstract milliseconds
	 * @param last the step that led here
	 * @param actionTaken the action quint's --mbt metadata names, for messages
	 */
	record State(Sem sem, long clock, long now, Step last, String actionTaken) implements Replay.ModelState {

		static State of(Map<String, Object> vars) {
			Map<String, Object> redis = record(vars.get("redis"));
			Map<Long, String> owners = new TreeMap<>();
			Itf.map(vars.get("handleOwner")).forEach((handle, owner) -> owners.put(number(handle), owner.toString()));
			return new State(Sem.of(record(redis.get("sem")), owners), number(redis.get("clock")),
					number(vars.get("now")), Step.of(record(vars.get("last")), owners), Itf.actionTaken(vars));
		}

		@Override
		public String stepKind() {
			return this.last.kind();
		}

	}

	/**
	 * The semaphore's sorted set (see the Sem type of the model).
	 *
	 * @param scores each member ("a:h3", "kept:a:h3") and its score, absolute abstract ms
	 * @param expiresAt the key's expiry, abstract ms (0 when it does not exist)
	 */
	record Sem(Map<String, Long> scores, long expiresAt) {

		static Sem of(Map<String, Object> fields, Map<Long, String> owners) {
			Map<String, Long> scores = new TreeMap<>();
			Itf.map(fields.get("scores")).forEach((member, score) -> {
				Map<String, Object> m = record(member);
				long handle = number(m.get("h"));
				String id = handleId(owners.get(handle), handle);
				scores.put(((Boolean) m.get("kept")) ? "kept:" + id : id, number(score));
			});
			return new Sem(scores, number(fields.get("expiresAt")));
		}

		boolean exists() {
			return !this.scores.isEmpty();
		}

	}

	/**
	 * A step (see the Step type of the model).
	 *
	 * @param kind acquire, pass, release, extend, renew, settle, giveUp, crash, tick,
	 * dataLoss, snapshot, failover
	 * @param owner the owner (thread) whose handle ran the script
	 * @param receiver the owner a pass hands the permit to, "" for other steps
	 * @param client the client of a crash
	 * @param handle the handle's id in Redis ("a:h3"), "" for none
	 * @param lease the lease given, abstract milliseconds
	 * @param reserve the fencing tokens reserved
	 * @param waits whether the acquirer waits
	 * @param keep the minimum hold left at a release, abstract milliseconds
	 * @param ms how long a tick (or a restart) lasts
	 * @param reply the script's reply in the model (renew: 0 held, 1 lost)
	 * @param lost whether the reply never reached the owner
	 * @param published whether the script announced "released"
	 */
	record Step(String kind, String owner, String receiver, String client, String handle, long lease, long reserve,
			boolean waits, long keep, long ms, long reply, boolean lost, boolean published) {

		static Step of(Map<String, Object> fields, Map<Long, String> owners) {
			long handle = number(fields.get("handle"));
			String owner = (String) fields.get("owner");
			return new Step((String) fields.get("kind"), owner, (String) fields.get("receiver"),
					(String) fields.get("client"), (handle > 0) ? handleId(owner, handle) : "",
					number(fields.get("lease")), number(fields.get("reserve")), (Boolean) fields.get("waits"),
					number(fields.get("keep")), number(fields.get("ms")), number(fields.get("reply")),
					(Boolean) fields.get("lost"), (Boolean) fields.get("published"));
		}

		@Override
		public String toString() {
			String lost = this.lost ? " [reply lost]" : "";
			return switch (this.kind) {
				case "acquire" -> "acquire(owner=%s, handle=%s, lease=%d, reserve=%d, waits=%s)%s".formatted(this.owner,
						this.handle, this.lease, this.reserve, this.waits, lost);
				case "pass" ->
					"pass(owner=%s, to=%s, handle=%s)%s".formatted(this.owner, this.receiver, this.handle, lost);
				case "release" ->
					"release(owner=%s, handle=%s, keep=%d)%s".formatted(this.owner, this.handle, this.keep, lost);
				case "extend", "renew" ->
					"%s(owner=%s, handle=%s, lease=%d)".formatted(this.kind, this.owner, this.handle, this.lease);
				case "settle", "giveUp" -> "%s(owner=%s, handle=%s)".formatted(this.kind, this.owner, this.handle);
				case "crash" -> "crash(client=%s)".formatted(this.client);
				case "tick", "dataLoss", "failover" -> "%s(%d ms)".formatted(this.kind, this.ms);
				default -> this.kind + "()";
			};
		}

	}

}
