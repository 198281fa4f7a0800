package io.github.redislock.internal;

/**
 * How long a lock stays taken for nobody after its last hold was released with a
 * {@code holdAtLeast}: until the minimum hold, counted from the acquisition, has passed.
 * <p>
 * The client counts the hold from when the grant's reply reached it, a one-way trip after
 * Redis granted it, and the release runs another one-way trip after the client sent it:
 * kept for {@link #millis} from the release, the lock would stay taken a round trip too
 * long, enough on a loaded machine to swallow the next tick of a scheduled job whose run
 * started late. When the hold came from a grant of Redis, its fencing token is Redis'
 * time of that grant in microseconds (or a little above, see {@code lock.lua}), and the
 * release script ends the keep at {@link #untilMicros} of Redis' clock instead, never
 * later than {@link #millis} from the release (a token that leads the clock, a server
 * whose clock is behind the one that granted). A hold passed on within this client has a
 * token reserved at an earlier grant, which would end the keep early: it sends no
 * {@code untilMicros}.
 *
 * @param millis the longest the lock stays taken for nobody, from when Redis runs the
 * release; 0 for not at all
 * @param untilMicros when the minimum hold ends on Redis' clock (its {@code TIME} in
 * microseconds), or 0 when unknown
 */
record KeepForNobody(long millis, long untilMicros) {

	/** Freed at once. */
	static final KeepForNobody NONE = new KeepForNobody(0, 0);

	/**
	 * What a release of a hold kept for {@code holdAtLeastMillis} in all leaves.
	 * @param heldForMillis how long the client has held it, by its own clock
	 * @param grantToken the token Redis granted the hold with, or 0 for a hold passed on
	 * within this client
	 */
	static KeepForNobody after(long holdAtLeastMillis, long heldForMillis, long grantToken) {
		long millis = Math.max(0, holdAtLeastMillis - heldForMillis);
		if (millis == 0) {
			return NONE;
		}
		return new KeepForNobody(millis, (grantToken > 0) ? grantToken + holdAtLeastMillis * 1000 : 0);
	}

}
