package io.github.redislock.model;

import java.util.List;
import java.util.Map;

import static io.github.redislock.model.Itf.number;
import static io.github.redislock.model.Itf.positive;
import static io.github.redislock.model.Itf.record;

/**
 * The states of model/read_write_lock.qnt's traces (see {@link Trace}).
 */
final class ReadWriteTrace {

	private ReadWriteTrace() {
	}

	/**
	 * What the model holds after a step.
	 *
	 * @param lock the hash (KEYS[1])
	 * @param ends the readers' lease ends (KEYS[2])
	 * @param marks the writers waiting (KEYS[3])
	 * @param clock the fencing clock key, 0 when absent
	 * @param now the model's time, abstract milliseconds
	 * @param last the step that led here
	 * @param actionTaken the action quint's --mbt metadata names, for messages
	 */
	record State(Lock lock, Zset ends, Zset marks, long clock, long now, Step last,
			String actionTaken) implements Replay.ModelState {

		static State of(Map<String, Object> vars) {
			Map<String, Object> redis = record(vars.get("redis"));
			return new State(Lock.of(record(redis.get("lock"))), Zset.of(record(redis.get("ends"))),
					Zset.of(record(redis.get("marks"))), number(redis.get("clock")), number(vars.get("now")),
					Step.of(record(vars.get("last"))), Itf.actionTaken(vars));
		}

		@Override
		public String stepKind() {
			return this.last.kind();
		}

	}

	/**
	 * The read/write lock's hash (see the Lock type of the model).
	 *
	 * @param readers fields "r:&lt;owner&gt;" (owners reading nothing left out)
	 * @param rn field "rn", 0 when absent
	 * @param rt field "rt", 0 when absent
	 * @param writer field "writer", "" when absent
	 * @param writeHolds field "w:&lt;writer&gt;"
	 * @param wt field "wt", 0 when absent
	 * @param readersWaiting whether field "readers-waiting" is there
	 * @param readTurn field "read-turn", absolute abstract ms, 0 when absent
	 * @param keptWrite field "kept-write", absolute abstract ms (microseconds in Redis),
	 * 0 when absent
	 * @param keptRead field "kept-read", as {@code keptWrite}
	 * @param expiresAt the key's expiry, abstract ms
	 */
	record Lock(Map<String, Long> readers, long rn, long rt, String writer, long writeHolds, long wt,
			boolean readersWaiting, long readTurn, long keptWrite, long keptRead, long expiresAt) {

		static Lock of(Map<String, Object> fields) {
			return new Lock(positive(fields.get("readers")), number(fields.get("rn")), number(fields.get("rt")),
					(String) fields.get("writer"), number(fields.get("wholds")), number(fields.get("wt")),
					(Boolean) fields.get("readersWaiting"), number(fields.get("readTurn")),
					number(fields.get("keptWrite")), number(fields.get("keptRead")), number(fields.get("expiresAt")));
		}

		boolean exists() {
			return this.rn != 0 || this.rt != 0 || !this.writer.isEmpty() || this.readersWaiting || this.readTurn != 0
					|| this.keptWrite != 0 || this.keptRead != 0 || !this.readers.isEmpty();
		}

	}

	/**
	 * A sorted set of owners with absolute times (abstract ms) as scores.
	 *
	 * @param scores each member's score
	 * @param expiresAt the key's expiry, 0 when it does not exist
	 */
	record Zset(Map<String, Long> scores, long expiresAt) {

		static Zset of(Map<String, Object> fields) {
			return new Zset(positive(fields.get("scores")), number(fields.get("expiresAt")));
		}

		boolean exists() {
			return !this.scores.isEmpty();
		}

	}

	/**
	 * A step (see the Step type of the model).
	 *
	 * @param kind readLock, writeLock, readUnlock, writeUnlock, writeWithdraw,
	 * readGiveUp, readExtend, readRenew, writeExtend, writeRenew, crash, tick, dataLoss,
	 * snapshot, failover
	 * @param owner the owner that ran the script
	 * @param client the client of a crash
	 * @param holds the holds the owner believed it had on that side
	 * @param lease the lease given, abstract milliseconds
	 * @param waits whether the acquirer waits
	 * @param ms how long a tick (or a restart) lasts
	 * @param reply the script's reply in the model
	 * @param lost whether the reply never reached the owner
	 * @param published the channels the script announced "released" on, in order
	 * ("readers", "writers")
	 * @param keep a release's minimum hold left (holdAtLeast), abstract ms, 0 for none
	 */
	record Step(String kind, String owner, String client, long holds, long lease, boolean waits, long ms, long reply,
			boolean lost, List<String> published, long keep) {

		static Step of(Map<String, Object> fields) {
			return new Step((String) fields.get("kind"), (String) fields.get("owner"), (String) fields.get("client"),
					number(fields.get("holds")), number(fields.get("lease")), (Boolean) fields.get("waits"),
					number(fields.get("ms")), number(fields.get("reply")), (Boolean) fields.get("lost"),
					Itf.strings(fields.get("published")), number(fields.get("keep")));
		}

		@Override
		public String toString() {
			String lost = this.lost ? " [reply lost]" : "";
			return switch (this.kind) {
				case "readLock", "writeLock" -> "%s(owner=%s, holds=%d, lease=%d, waits=%s)%s".formatted(this.kind,
						this.owner, this.holds, this.lease, this.waits, lost);
				case "readUnlock", "writeUnlock" ->
					"%s(owner=%s, holds=%d, keep=%d)".formatted(this.kind, this.owner, this.holds, this.keep);
				case "writeWithdraw", "readGiveUp" -> "%s(owner=%s)".formatted(this.kind, this.owner);
				case "readExtend", "readRenew", "writeExtend", "writeRenew" ->
					"%s(owner=%s, lease=%d)".formatted(this.kind, this.owner, this.lease);
				case "crash" -> "crash(client=%s)".formatted(this.client);
				case "tick", "dataLoss", "failover" -> "%s(%d ms)".formatted(this.kind, this.ms);
				default -> this.kind + "()";
			};
		}

	}

}
