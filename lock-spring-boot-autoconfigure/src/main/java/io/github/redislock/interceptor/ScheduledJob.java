package io.github.redislock.interceptor;

import java.lang.reflect.Method;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TimeZone;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

import io.github.redislock.annotation.InvalidLockAnnotationException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.StringUtils;

/**
 * The triggers of a locked {@code @Scheduled} method, and how long its lock stays taken
 * after a run so that each tick runs on one instance.
 * <p>
 * Every instance fires the job on its own clock, and the first to take the lock runs the
 * tick.
 * <ul>
 * <li>A cron job's lock then stays taken, for nobody, until half-way to this instance's
 * next run: the others' firings of the same tick come within that half (their clocks
 * differ from this one's by less), and this instance's next firing comes after it. Half
 * is the widest margin on both sides at once, so nothing needs tuning: a cron job every
 * minute tolerates clocks up to 30 s apart and a firing up to 30 s late.</li>
 * <li>A {@code fixedRate} job's instances share no tick: each counts its periods from its
 * own start, some phase apart that changes with every deployment. Its ticks are therefore
 * windows of Redis' clock, {@code [k * period, (k + 1) * period)}, and the first grant in
 * a window keeps the lock, for nobody, until the window's end, read from the grant's
 * fencing token (at least Redis' time of the grant, in microseconds). No window runs
 * twice, whatever the instances' phases and clocks, and a window runs once when any
 * instance's firing is granted within it after the previous window's hold ended. That
 * hold ends at its window's end on Redis' clock (the release script ends it at the
 * grant's token plus the hold), or later when the release itself comes later. An instance
 * whose firings come about when its own last hold ends (its phase is at a window's edge,
 * its clock a little ahead of Redis') would skip every other window when alone; so such a
 * firing waits for that end, a quarter of the period at most (a second at most) beyond
 * it. Waiting never runs a window twice: whoever takes the lock keeps it to its window's
 * end.</li>
 * <li>A {@code fixedDelay} job's runs are kept at least half the delay apart after each
 * run ends: its instances drift against each other and share no tick to run once.</li>
 * </ul>
 * The holds are counted in Redis' time, from the acquisition (a {@code fixedDelay} job's
 * from the end of its run), so no instance's clock is read for them except a cron job's,
 * to find its next tick.
 */
final class ScheduledJob implements MinimumHold {

	/**
	 * The share of the shortest fixed rate that a firing may come before or after this
	 * instance's own last hold ends and wait for it: far more than a round trip, which is
	 * how late the hold ends normally. A release that a loaded machine stalls longer can
	 * still cost a window: with a tenth or a quarter alike, 1 to 3 windows of 11 of an
	 * instance alone at a window's edge, at load 20 on 2 cores.
	 */
	private static final int GRACE_PER_PERIOD = 4;

	/** The most a firing waits beyond its own last hold's end, however long the rate. */
	private static final Duration MAX_GRACE = Duration.ofSeconds(1);

	private final List<Trigger> triggers;

	// for a fixed rate: how near its own last hold's end a firing waits for it; else null
	@Nullable private final Duration grace;

	// when this instance's last hold of a fixed-rate window ends, as this instance
	// reckons it (System.nanoTime(), a round trip early at most), or null before the
	// first
	private volatile @Nullable Long ownHoldEndsNanos;

	private ScheduledJob(List<Trigger> triggers) {
		this.triggers = triggers;
		Duration shortestRate = null;
		for (Trigger trigger : triggers) {
			if (trigger instanceof FixedRate rate
					&& (shortestRate == null || rate.period().compareTo(shortestRate) < 0)) {
				shortestRate = rate.period();
			}
		}
		this.grace = (shortestRate != null) ? min(shortestRate.dividedBy(GRACE_PER_PERIOD), MAX_GRACE) : null;
	}

	/**
	 * The scheduled job the method is, or {@code null} when it carries no
	 * {@code @Scheduled}.
	 * @param resolver resolves placeholders as Spring's scheduling does
	 * @param where the annotated method, for messages
	 */
	static @Nullable ScheduledJob of(Method method, UnaryOperator<String> resolver, String where) {
		Set<Scheduled> annotations = AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class,
				Schedules.class);
		if (annotations.isEmpty()) {
			return null;
		}
		List<Trigger> triggers = new ArrayList<>();
		for (Scheduled scheduled : annotations) {
			Trigger trigger = trigger(scheduled, resolver, where);
			if (trigger != null) {
				triggers.add(trigger);
			}
		}
		return new ScheduledJob(List.copyOf(triggers));
	}

	/**
	 * How long the lock of a run that started at {@code startedNanos}
	 * ({@link System#nanoTime()}) stays taken at least, counted from its acquisition: the
	 * soonest of its triggers' holds.
	 * @param fencingToken gives the token of the run's lock, or
	 * {@link MinimumHold#UNKNOWN_GRANT}
	 */
	@Override
	public Duration holdAtLeast(long startedNanos, LongSupplier fencingToken) {
		long now = System.nanoTime();
		Duration ran = Duration.ofNanos(Math.max(0, now - startedNanos));
		long token = (this.grace != null) ? fencingToken.getAsLong() : UNKNOWN_GRANT;
		Duration hold = null;
		for (Trigger trigger : this.triggers) {
			Duration triggerHold = trigger.hold(ran, token);
			if (hold == null || triggerHold.compareTo(hold) < 0) {
				hold = triggerHold;
			}
		}
		if (hold == null) {
			return Duration.ZERO;
		}
		if (token != UNKNOWN_GRANT) {
			// counted from the firing, before the grant: this end is early rather than
			// late, by the acquisition's way to Redis
			this.ownHoldEndsNanos = Math.max(startedNanos + hold.toNanos(), now);
		}
		return hold;
	}

	/**
	 * How long a firing at {@code nowNanos} waits for the lock: for a fixed rate, when
	 * this instance's own last hold ends within the grace of now, until that end and the
	 * grace; else not at all.
	 */
	@Override
	public Duration waitAtLeast(long nowNanos) {
		Long ends = this.ownHoldEndsNanos;
		if (this.grace == null || ends == null) {
			return Duration.ZERO;
		}
		long untilEnd = ends - nowNanos;
		long grace = this.grace.toNanos();
		return (Math.abs(untilEnd) <= grace) ? Duration.ofNanos(untilEnd + grace) : Duration.ZERO;
	}

	@Override
	public String toString() {
		return "scheduled " + this.triggers;
	}

	private static Duration min(Duration one, Duration other) {
		return (one.compareTo(other) <= 0) ? one : other;
	}

	private static @Nullable Trigger trigger(Scheduled scheduled, UnaryOperator<String> resolver, String where) {
		String cron = resolver.apply(scheduled.cron());
		if (StringUtils.hasText(cron) && !Scheduled.CRON_DISABLED.equals(cron)) {
			return cron(cron, resolver.apply(scheduled.zone()), where);
		}
		ChronoUnit unit = scheduled.timeUnit().toChronoUnit();
		Duration rate = period(scheduled.fixedRate(), resolver.apply(scheduled.fixedRateString()), unit, "fixedRate",
				where);
		if (rate != null) {
			return new FixedRate(rate);
		}
		Duration delay = period(scheduled.fixedDelay(), resolver.apply(scheduled.fixedDelayString()), unit,
				"fixedDelay", where);
		// only an initial delay: a task that runs once
		return (delay != null) ? new FixedDelay(delay) : null;
	}

	private static Trigger cron(String expression, String zone, String where) {
		try {
			ZoneId zoneId = StringUtils.hasText(zone) ? ZoneId.of(zone) : TimeZone.getDefault().toZoneId();
			return new Cron(CronExpression.parse(expression), zoneId, expression);
		}
		catch (IllegalArgumentException | DateTimeException ex) {
			throw new InvalidLockAnnotationException(where + ": its @Scheduled cron '" + expression + "' (zone '" + zone
					+ "') is not valid: " + ex.getMessage(), "Fix the cron expression or zone of @Scheduled", ex);
		}
	}

	private static @Nullable Duration period(long value, String text, ChronoUnit unit, String attribute, String where) {
		if (value >= 0) {
			return Duration.of(value, unit);
		}
		if (!StringUtils.hasText(text)) {
			return null;
		}
		try {
			return DurationFormatterUtils.detectAndParse(text.trim(), DurationFormat.Unit.fromChronoUnit(unit));
		}
		catch (IllegalArgumentException | DateTimeException ex) {
			throw new InvalidLockAnnotationException(
					where + ": its @Scheduled " + attribute + "String '" + text + "' is not a duration",
					"Write it like 500, 5s or PT5S", ex);
		}
	}

	/** One trigger of the job. */
	private interface Trigger {

		/**
		 * How long a run that has run so long keeps its lock, from its acquisition.
		 * @param token the fencing token of the run's lock, or
		 * {@link MinimumHold#UNKNOWN_GRANT}
		 */
		Duration hold(Duration ran, long token);

	}

	/**
	 * Runs once per window of Redis' clock as long as the period: a run keeps its lock
	 * until the end of the window it was granted in.
	 */
	private record FixedRate(Duration period) implements Trigger {

		private static final long NANOS_PER_MICRO = 1_000;

		private static final long MICROS_PER_MILLI = 1_000;

		@Override
		public Duration hold(Duration ran, long token) {
			if (token == MinimumHold.UNKNOWN_GRANT) {
				// not known before the grant (a reactive job): keep runs half a period
				// apart instead
				return this.period.dividedBy(2);
			}
			long periodMicros = Math.max(1, this.period.toNanos() / NANOS_PER_MICRO);
			long windowEndMicros = (Math.floorDiv(token, periodMicros) + 1) * periodMicros;
			// rounded up: a hold a fraction of a millisecond short would free the lock
			// before the window's end
			return Duration.ofMillis((windowEndMicros - token + MICROS_PER_MILLI - 1) / MICROS_PER_MILLI);
		}

	}

	private record FixedDelay(Duration delay) implements Trigger {

		@Override
		public Duration hold(Duration ran, long token) {
			return ran.plus(this.delay.dividedBy(2));
		}

	}

	private record Cron(CronExpression expression, ZoneId zone, String source) implements Trigger {

		@Override
		public Duration hold(Duration ran, long token) {
			ZonedDateTime started = ZonedDateTime.now(this.zone).minus(ran);
			ZonedDateTime next = this.expression.next(started);
			ZonedDateTime afterNext = (next != null) ? this.expression.next(next) : null;
			if (next == null || afterNext == null) {
				return Duration.ZERO;
			}
			Duration untilNext = Duration.between(started, next);
			Duration halfGap = Duration.between(next, afterNext).dividedBy(2);
			// A scheduler may fire a hair before its tick (its clock and the wall clock
			// drift apart): such a run is the next tick's, and keeps the lock until
			// half-way to the tick after that.
			return (untilNext.compareTo(halfGap) < 0) ? untilNext.plus(halfGap) : untilNext.dividedBy(2);
		}

		@Override
		public String toString() {
			return "cron '" + this.source + "'";
		}

	}

}
