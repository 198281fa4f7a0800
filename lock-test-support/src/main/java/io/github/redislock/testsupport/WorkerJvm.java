package io.github.redislock.testsupport;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a worker process a test starts beside its own JVM (a second
 * application instance, a holder to pause or kill): the same {@code java} and class path,
 * a worker class's {@code main}, its arguments. Start it with {@link ProcessBuilder}.
 * <p>
 * Workers live seconds and mostly wait on Redis: compiled by C1 alone and with one
 * garbage collector thread they start faster and leave more of a small machine's cores to
 * the processes under test.
 *
 * @since 0.1.0
 */
public final class WorkerJvm {

	private WorkerJvm() {
	}

	/**
	 * The command that runs {@code main} with {@code arguments}, after the given JVM
	 * options (a heap limit, say).
	 * @param jvmOptions options for the worker's JVM
	 * @param main the class whose {@code main} runs
	 * @param arguments its arguments
	 * @return the command, for {@link ProcessBuilder#ProcessBuilder(List)}
	 */
	public static List<String> command(List<String> jvmOptions, Class<?> main, String... arguments) {
		List<String> command = new ArrayList<>();
		command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
		command.add("-XX:TieredStopAtLevel=1");
		command.add("-XX:+UseSerialGC");
		command.addAll(jvmOptions);
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(main.getName());
		command.addAll(List.of(arguments));
		return command;
	}

	/**
	 * The command that runs {@code main} with {@code arguments}.
	 * @param main the class whose {@code main} runs
	 * @param arguments its arguments
	 * @return the command, for {@link ProcessBuilder#ProcessBuilder(List)}
	 */
	public static List<String> command(Class<?> main, String... arguments) {
		return command(List.of(), main, arguments);
	}

}
