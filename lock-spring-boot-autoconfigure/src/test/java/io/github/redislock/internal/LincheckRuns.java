package io.github.redislock.internal;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;

import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * How long the Lincheck tests run: a few scenarios of a few hundred interleavings each by
 * default, so that each costs the build a second or two;
 * {@code -Dredislock.lincheck.scenarios=} and {@code -Dredislock.lincheck.invocations=}
 * (runs per scenario) run many more by hand.
 */
final class LincheckRuns {

	static final int SCENARIOS = Integer.getInteger("redislock.lincheck.scenarios", 2);

	static final int INVOCATIONS = Integer.getInteger("redislock.lincheck.invocations", 15);

	// a written scenario is the race a test is about: it gets more of them
	static final int WRITTEN_INVOCATIONS = 3 * INVOCATIONS;

	// How long one invocation may take before Lincheck reports "The execution has hung".
	// Its default, 30 s, was exceeded on a CI machine at load 28 by an invocation whose
	// thread was still in the JVM retransforming a class for Lincheck (the first touch
	// of a field of HoldLedger), not in the code under test. A real hang still fails,
	// later. Lincheck 3.7 sets it through a Kotlin-internal method (no public setter).
	static final long INVOCATION_TIMEOUT_MILLIS = Long.getLong("redislock.lincheck.invocationTimeoutMs", 180_000);

	private LincheckRuns() {
	}

	/**
	 * Model checking: Lincheck runs each scenario's operations under its own scheduler,
	 * switching threads at shared accesses and monitors, a different interleaving each
	 * invocation.
	 */
	static ModelCheckingOptions modelChecking() {
		return new ModelCheckingOptions().iterations(SCENARIOS)
			.invocationsPerIteration(INVOCATIONS)
			.invocationTimeout$lincheck(INVOCATION_TIMEOUT_MILLIS);
	}

	/**
	 * Model checking of the written scenarios alone (see {@link #scenario}), with more
	 * interleavings each than a random scenario gets.
	 */
	static ModelCheckingOptions modelChecking(ExecutionScenario... written) {
		ModelCheckingOptions options = new ModelCheckingOptions().iterations(0)
			.invocationsPerIteration(WRITTEN_INVOCATIONS)
			.invocationTimeout$lincheck(INVOCATION_TIMEOUT_MILLIS);
		for (ExecutionScenario scenario : written) {
			options.addCustomScenario(scenario);
		}
		return options;
	}

	/**
	 * Stress: the same scenarios on real threads, without control of the interleaving.
	 */
	static StressOptions stress() {
		return new StressOptions().iterations(SCENARIOS)
			.invocationsPerIteration(2 * INVOCATIONS)
			.invocationTimeout$lincheck(INVOCATION_TIMEOUT_MILLIS);
	}

	/**
	 * A scenario written out: the race a test is about, which random scenarios would
	 * rarely contain. Lincheck explores its interleavings as those of the random ones.
	 * @param type the test class
	 * @param parallel each thread's operations, then those run before and after them
	 */
	static ExecutionScenario scenario(Class<?> type, List<Actor> before, List<List<Actor>> parallel,
			List<Actor> after) {
		Actor validation = Arrays.stream(type.getMethods())
			.filter((method) -> method.isAnnotationPresent(Validate.class))
			.findFirst()
			.map((method) -> new Actor(method, List.of()))
			.orElse(null);
		return new ExecutionScenario(before, parallel, after, validation);
	}

	/** One operation of a written scenario: the test class' method of that name. */
	static Actor call(Class<?> type, String name, Object... arguments) {
		for (Method method : type.getMethods()) {
			if (method.getName().equals(name) && method.getParameterCount() == arguments.length) {
				return new Actor(method, List.of(arguments));
			}
		}
		throw new IllegalArgumentException("No operation " + name + " of " + arguments.length + " in " + type);
	}

}
