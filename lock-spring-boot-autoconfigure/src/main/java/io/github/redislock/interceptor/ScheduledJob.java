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
 * tick. The lock then stays taken, for nobody, until half-way to this instance's next
 * run: the others' firings of the same tick come within that half (their clocks differ
 * from this one's by less), and this instance's next firing comes after it. Half is the
 * widest margin on both sides at once, so nothing needs tuning: a cron job every minute
 * tolerates clocks up to 30 s apart and a firing up to 30 s late. For {@code fixedRate}
 * and {@code fixedDelay} the instances' ticks are not aligned at all (each counts from
 * its own start); the hold then keeps runs at least half a period apart, and the first
 * firing after it runs the job. When two instances fire about half a period apart, a late
 * firing can move the job from one to the other, and that period runs twice.
 * <p>
 * The hold is counted in Redis' time, from the acquisition (a {@code fixedDelay} job's
 * from the end of its run), so no instance's clock is read for it except a cron job's, to
 * find its next tick.
 */
final class ScheduledJob {

	private final List<Trigger> triggers;

	private ScheduledJob(List<Trigger> triggers) {
		this.triggers = triggers;
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
	 * ({@link System#nanoTime()}) stays taken at least, counted from its acquisition:
	 * half-way to this instance's next run, the soonest of its triggers'.
	 */
	Duration holdAtLeast(long startedNanos) {
		Duration ran = Duration.ofNanos(Math.max(0, System.nanoTime() - startedNanos));
		Duration hold = null;
		for (Trigger trigger : this.triggers) {
			Duration triggerHold = trigger.hold(ran);
			if (hold == null || triggerHold.compareTo(hold) < 0) {
				hold = triggerHold;
			}
		}
		return (hold != null) ? hold : Duration.ZERO;
	}

	@Override
	public String toString() {
		return "scheduled " + this.triggers;
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
		 * How long a run that has run so long keeps its lock, from its acquisition:
		 * half-way to this trigger's next run.
		 */
		Duration hold(Duration ran);

	}

	private record FixedRate(Duration period) implements Trigger {

		@Override
		public Duration hold(Duration ran) {
			return this.period.dividedBy(2);
		}

	}

	private record FixedDelay(Duration delay) implements Trigger {

		@Override
		public Duration hold(Duration ran) {
			return ran.plus(this.delay.dividedBy(2));
		}

	}

	private record Cron(CronExpression expression, ZoneId zone, String source) implements Trigger {

		@Override
		public Duration hold(Duration ran) {
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
