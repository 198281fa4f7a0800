package io.github.redislock;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.redislock.internal.ScriptTexts;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every key a lock script touches is one it declares in {@code KEYS}: servers and proxies
 * that check a script's declared keys (Dragonfly, Cluster proxies, ACL key patterns) run
 * only such scripts, and a Cluster routes a script by them. So no {@code redis.call}
 * names a key built in Lua (a string, a concatenation, {@code string.*}) or taken from
 * {@code ARGV}. A channel is not a key: it comes whole from {@code ARGV}, never built in
 * Lua (its hash tag is the lock key's, so it lies in the script's slot). Declared in
 * {@code KEYS}, it made a migrating Cluster slot refuse every release with
 * {@code TRYAGAIN} (a declared key that never exists), which
 * {@code RedisClusterSlotMigrationTests} showed. Each script is checked as Redis runs it,
 * behind the prelude ({@link ScriptTexts}), whose {@code publish} takes its channel from
 * the script.
 */
class ScriptKeysTests {

	private static final String SCRIPTS = "classpath*:io/github/redislock/internal/*.lua";

	// commands whose every argument after the name is a key
	private static final Set<String> ALL_KEYS = Set.of("del", "exists", "unlink", "touch");

	// commands that take no key
	private static final Set<String> NO_KEY = Set.of("time");

	private static final Pattern CALL = Pattern.compile("redis\\.p?call\\(");

	private static final Pattern DECLARED_KEY = Pattern.compile("KEYS\\[[\\w\\s*+\\-#]+\\]");

	private static final Pattern NAME = Pattern.compile("[A-Za-z_]\\w*");

	// a channel: an argument, whole
	private static final Pattern ARGUMENT = Pattern.compile("ARGV\\[[\\w\\s*+\\-#]+\\]");

	private static final int MAX_DEPTH = 3;

	@Test
	void everyScriptDeclaresEachKeyItTouchesAndTakesChannelsWhole() throws IOException {
		List<Resource> scripts = scripts();
		assertThat(scripts).hasSizeGreaterThan(20);
		List<String> violations = new ArrayList<>();
		for (Resource script : scripts) {
			violations.addAll(violations(script.getFilename(), ScriptTexts.text(script.getFilename())));
		}
		assertThat(violations).isEmpty();
	}

	@Test
	void everyScriptThatPublishesTakesItsChannelAsAnArgumentAndCanShardIt() throws IOException {
		// the prelude's publish() sends SPUBLISH or PUBLISH by the script's flag; a
		// script
		// publishes only through it, so none can forget the sharded case
		assertThat(ScriptTexts.prelude()).contains("'spublish'").contains("'publish'");
		int publishing = 0;
		for (Resource script : scripts()) {
			String text = script.getContentAsString(StandardCharsets.UTF_8);
			assertThat(text).as(script.getFilename()).doesNotContain("'publish'").doesNotContain("'spublish'");
			if (text.contains("publish(ARGV[")) {
				publishing++;
			}
		}
		// unlock, pass, withdraw, fair-unlock, fair-withdraw, fair-heartbeat,
		// read-unlock,
		// write-unlock, write-withdraw, semaphore-release, semaphore-extend, force-unlock
		assertThat(publishing).isEqualTo(12);
	}

	// every script but the prelude, which is no script of its own
	private static List<Resource> scripts() throws IOException {
		return Stream.of(new PathMatchingResourcePatternResolver().getResources(SCRIPTS))
			.filter((script) -> !ScriptTexts.PRELUDE.equals(script.getFilename()))
			.toList();
	}

	@Test
	void keysBuiltInLuaAreFound() {
		assertThat(violations("a.lua", "redis.call('hset', KEYS[1] .. ':x', 'f', 1)")).hasSize(1);
		assertThat(violations("a.lua", "redis.call('publish', KEYS[1] .. ':released', 'm')")).hasSize(1);
		assertThat(violations("a.lua", "redis.call('publish', 'lock:released', 'm')")).hasSize(1);
		assertThat(violations("a.lua", "redis.call('get', 'lock:fence')")).hasSize(1);
		assertThat(violations("a.lua", "redis.call('del', KEYS[1], ARGV[1])")).hasSize(1);
		assertThat(violations("a.lua", "local key = string.format('%s:q', KEYS[1])\nredis.call('zadd', key, 1, 'm')"))
			.hasSize(1);
		assertThat(violations("a.lua", "local key = KEYS[1]\nkey = ARGV[1]\nredis.call('pttl', key)")).hasSize(1);
		assertThat(violations("a.lua",
				"local function raise(key, ms)\n  redis.call('pexpire', key, ms)\nend\nraise(KEYS[1], 5)\nraise('x', 5)"))
			.hasSize(1);
		assertThat(violations("a.lua",
				"local publish = ARGV[3] == '1' and 'spublish' or 'publish'\nredis.call(publish, ARGV[4] .. 'c', 'm')"))
			.hasSize(1);
		assertThat(violations("a.lua", ScriptTexts.prelude() + "publish(ARGV[2], ARGV[3] .. ':c', 'm')")).hasSize(1);
	}

	@Test
	void declaredKeysPass() {
		assertThat(violations("a.lua", "redis.call(ARGV[2] == '1' and 'spublish' or 'publish', ARGV[7], 'released')"))
			.isEmpty();
		assertThat(violations("a.lua", "for i = 3, #ARGV do\n  redis.call('publish', ARGV[i], 'released')\nend"))
			.isEmpty();
		assertThat(violations("a.lua",
				"for i = 1, #KEYS do\n  local key = KEYS[2 * i - 1]\n"
						+ "  redis.call('pexpire', key, ARGV[1])\nend\nredis.call('del', KEYS[1], KEYS[i])\n"
						+ "redis.call('time')\nlocal function raise(key, ms)\n  redis.call('pexpire', key, ms)\nend\n"
						+ "raise(KEYS[1], 5)\nraise(KEYS[2], 5)"))
			.isEmpty();
	}

	/**
	 * What names a key not taken from KEYS, or a channel not taken whole from ARGV:
	 * script, line and expression.
	 */
	static List<String> violations(String script, String withComments) {
		// what a comment says is no call (a header naming publish(), say); lines stay
		String text = withComments.replaceAll("(?m)--.*$", "");
		List<String> found = new ArrayList<>();
		Matcher call = CALL.matcher(text);
		while (call.find()) {
			List<String> arguments = arguments(text, call.end());
			String command = arguments.get(0);
			if (NO_KEY.contains(unquoted(command))) {
				continue;
			}
			if (command.contains("publish'")) {
				String channel = arguments.get(1);
				if (!isTaken(channel, ARGUMENT, text, 0)) {
					int line = text.substring(0, call.start()).split("\n", -1).length;
					found.add(script + ":" + line + ": " + command + " on channel " + channel);
				}
				continue;
			}
			List<String> keys = ALL_KEYS.contains(unquoted(command)) ? arguments.subList(1, arguments.size())
					: arguments.subList(1, Math.min(2, arguments.size()));
			for (String key : keys) {
				if (!isDeclared(key, text)) {
					int line = text.substring(0, call.start()).split("\n", -1).length;
					found.add(script + ":" + line + ": " + command + " on " + key);
				}
			}
		}
		return found;
	}

	// KEYS[<index>] itself, a local every assignment of which is one, or a function's
	// parameter that every call passes one
	private static boolean isDeclared(String key, String text) {
		return isTaken(key, DECLARED_KEY, text, 0);
	}

	// whole: what the expression must be (a declared key, or a whole argument), itself or
	// through a local or a function's parameter; depth: a parameter passed on as another
	// function's parameter, a few levels at most
	private static boolean isTaken(String key, Pattern whole, String text, int depth) {
		if (whole.matcher(key).matches()) {
			return true;
		}
		if (!NAME.matcher(key).matches() || depth > MAX_DEPTH) {
			return false;
		}
		Matcher assignment = Pattern.compile("(?m)^\\s*(?:local\\s+)?" + key + "\\s*=\\s*(.+)$").matcher(text);
		boolean assigned = false;
		while (assignment.find()) {
			assigned = true;
			if (!whole.matcher(assignment.group(1).trim()).matches()) {
				return false;
			}
		}
		if (assigned) {
			return true;
		}
		Matcher function = Pattern.compile("function\\s+(\\w+)\\(([^)]*)\\)").matcher(text);
		while (function.find()) {
			List<String> parameters = List.of(function.group(2).split("\\s*,\\s*"));
			int position = parameters.indexOf(key);
			if (position >= 0) {
				return isEveryCallPassing(whole, function.group(1), position, text, function.end(), depth);
			}
		}
		return false;
	}

	// a function no script calls (the prelude's publish() in a script that does not
	// publish) runs nothing: it touches no key
	private static boolean isEveryCallPassing(Pattern whole, String function, int position, String text, int from,
			int depth) {
		Matcher call = Pattern.compile("\\b" + function + "\\(").matcher(text);
		while (call.find(from)) {
			from = call.end();
			List<String> arguments = arguments(text, call.end());
			if (arguments.size() <= position || !isTaken(arguments.get(position), whole, text, depth + 1)) {
				return false;
			}
		}
		return true;
	}

	private static String unquoted(String argument) {
		return (argument.length() > 1 && argument.startsWith("'") && argument.endsWith("'"))
				? argument.substring(1, argument.length() - 1) : "";
	}

	// the top-level arguments of the call whose opening parenthesis ends at start
	private static List<String> arguments(String text, int start) {
		List<String> arguments = new ArrayList<>();
		int depth = 0;
		boolean quoted = false;
		StringBuilder current = new StringBuilder();
		for (int i = start; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\'') {
				quoted = !quoted;
			}
			else if (!quoted && (c == '(' || c == '[' || c == '{')) {
				depth++;
			}
			else if (!quoted && (c == ')' || c == ']' || c == '}')) {
				if (depth == 0) {
					break;
				}
				depth--;
			}
			else if (!quoted && depth == 0 && c == ',') {
				arguments.add(current.toString().trim());
				current.setLength(0);
				continue;
			}
			current.append(c);
		}
		arguments.add(current.toString().trim());
		return arguments;
	}

}
