package io.github.redislock.model;

import java.util.Map;
import java.util.Set;

import static io.github.redislock.model.Itf.number;
import static io.github.redislock.model.Itf.record;

/**
 * The states of model/exclusive_lock.qnt's traces (see {@link Trace}).
 */
final class ExclusiveTrace {

	private ExclusiveTrace() {
	}

	/**
	 * What the model holds after a step.
	 *
	 * @param lock the lock hash
	 * @param clock the fencing clock key, 0 when absent
	 * @param now the model's time, abstract milliseconds
	 * @param last the step that led here, with its arguments and the script's reply
	 * @param actionTaken the action quint's --mbt metadata names, for messages
	 */
	record State(Lock lock, long clock, long now, Step last, String actionTaken) implements Replay.ModelState {

		static State of(Map<String, Object> vars) {
			return new State(Lock.of(record(vars.get("lock"))), number(vars.get("clock")), number(vars.get("now")),
					Step.of(record(vars.get("last"))), Itf.actionTaken(vars));
		}

		@Override
		public String stepKind() {
			return this.last.kind();
		}

	}

	/**
	 * The model's lock hash (see the Lock type of the model).
	 *
	 * @param exists whether the key exists
	 * @param expiresAt its absolute expiry, abstract milliseconds
	 * @param holds owner fields and their counts (owners holding nothing are left out)
	 * @param token field "token"
	 * @param client field "client", "" when absent
	 * @param yielded whether field "yielded-by" is there
	 * @param yieldedBy its value
	 * @param holdAtLeast whether field "hold-at-least" is there
	 * @param marks the waiter marks "w:&lt;owner&gt;" and "w:&lt;client&gt;", without
	 * "w:"
	 * @param contended field "contended", 0 when absent
	 */
	record Lock(boolean exists, long expiresAt, Map<String, Long> holds, long token, String client, boolean yielded,
			String yieldedBy, boolean holdAtLeast, Set<String> marks, long contended) {

		static Lock of(Map<String, Object> fields) {
			return new Lock((Boolean) fields.get("exists"), number(fields.get("expiresAt")),
					Itf.positive(fields.get("holds")), number(fields.get("token")), (String) fields.get("client"),
					(Boolean) fields.get("yielded"), (String) fields.get("yieldedBy"),
					(Boolean) fields.get("holdAtLeast"), Itf.stringSet(fields.get("marks")),
					number(fields.get("contended")));
		}

	}

	/**
	 * A step: which script (or fault, or time) and with what; see the Step type of the
	 * model.
	 *
	 * @param kind acquire, release, staleRelease, withdraw, extend, renew, pass, tick,
	 * dataLoss, snapshot, failover
	 * @param owner the owner that ran the script
	 * @param holds the holds the owner believed it had (acquire, release)
	 * @param lease the lease given, abstract milliseconds
	 * @param reserve the fencing tokens reserved
	 * @param waits whether the acquirer waits
	 * @param keep the minimum hold a release keeps the lock for
	 * @param yieldMs how long a release or pass keeps the lock for the other clients
	 * @param giveUp whether a pass gives the lock up when another client waits
	 * @param othersOnly whether a release is announced only to other clients
	 * @param grant the token of the grant a release or pass speaks for (0: unknown)
	 * @param ms how long a tick (or a restart) lasts
	 * @param reply the script's reply in the model (tick: 1 when the lock expired)
	 * @param lost whether the reply never reached the owner (the script ran all the same)
	 * @param published what the script published on the lock's channel: "" nothing,
	 * "released", or "yielded" ("yielded:&lt;client&gt;", the lock's yielded-by after it)
	 */
	record Step(String kind, String owner, long holds, long lease, long reserve, boolean waits, long keep, long yieldMs,
			boolean giveUp, boolean othersOnly, long grant, long ms, long reply, boolean lost, String published) {

		static Step of(Map<String, Object> fields) {
			return new Step((String) fields.get("kind"), (String) fields.get("owner"), number(fields.get("holds")),
					number(fields.get("lease")), number(fields.get("reserve")), (Boolean) fields.get("waits"),
					number(fields.get("keep")), number(fields.get("yieldMs")), (Boolean) fields.get("giveUp"),
					(Boolean) fields.get("othersOnly"), number(fields.get("grant")), number(fields.get("ms")),
					number(fields.get("reply")), (Boolean) fields.get("lost"), (String) fields.get("published"));
		}

		@Override
		public String toString() {
			return switch (this.kind) {
				case "acquire" -> "acquire(owner=%s, holds=%d, lease=%d, reserve=%d, waits=%s)%s".formatted(this.owner,
						this.holds, this.lease, this.reserve, this.waits, lostReply());
				case "release", "staleRelease" ->
					"%s(owner=%s, grant=%d, holds=%d, keep=%d, yield=%d, othersOnly=%s)%s".formatted(this.kind,
							this.owner, this.grant, this.holds, this.keep, this.yieldMs, this.othersOnly, lostReply());
				case "withdraw" -> "withdraw(owner=%s)".formatted(this.owner);
				case "extend", "renew" -> "%s(owner=%s, lease=%d)".formatted(this.kind, this.owner, this.lease);
				case "pass" -> "pass(owner=%s, grant=%d, reserve=%d, lease=%d, yield=%d, giveUp=%s)"
					.formatted(this.owner, this.grant, this.reserve, this.lease, this.yieldMs, this.giveUp);
				case "tick", "dataLoss", "failover" -> "%s(%d ms)".formatted(this.kind, this.ms);
				default -> this.kind + "()";
			};
		}

		private String lostReply() {
			return this.lost ? " [reply lost]" : "";
		}

	}

}
