package io.github.redislock.model;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One trace of a model as {@code quint run} or {@code quint test} write it with
 * {@code --out-itf} (the Informal Trace Format): the state after every step, each with
 * the step that led there, read by the kind's state reader.
 *
 * @param <S> the kind's model state
 * @param name the trace file's name
 * @param states the initial state, then one per step
 */
record Trace<S>(String name, List<S> states) {

	private static final ObjectMapper JSON = new ObjectMapper();

	/**
	 * Every trace the build wrote for one kind, in file name order: the scenarios
	 * ({@code scenario_<name>.itf.json}) and the random traces
	 * ({@code trace_<n>.itf.json}).
	 * @param subdirectory the kind's directory under the trace directory, "" for the
	 * exclusive lock's
	 * @param state reads one state from its variables, by name
	 */
	static <S> List<Trace<S>> all(String subdirectory, Function<Map<String, Object>, S> state) {
		Path directory = Path.of(System.getProperty("redislock.model.traceDirectory", "target/traces"), subdirectory);
		try (Stream<Path> files = Files.list(directory)) {
			List<Trace<S>> traces = files.filter((file) -> file.getFileName().toString().endsWith(".itf.json"))
				.sorted()
				.map((file) -> read(file, state))
				.toList();
			assertThat(traces).as("traces in %s (the build's quint run writes them)", directory).isNotEmpty();
			assertThat(traces).allSatisfy((trace) -> assertThat(trace.states()).hasSizeGreaterThan(1));
			return traces;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static <S> Trace<S> read(Path file, Function<Map<String, Object>, S> state) {
		try {
			List<S> states = new ArrayList<>();
			for (JsonNode node : JSON.readTree(file.toFile()).get("states")) {
				states.add(state.apply(Itf.record(Itf.decode(node))));
			}
			return new Trace<>(file.getFileName().toString(), states);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
