package io.github.redislock.internal;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every lock script begins with prelude.lua, and only there are the lines every script
 * shares (the replication guard, the server clock, publishing, the reply codes): a script
 * that wrote them again, or a loader that left the prelude out, fails here.
 */
class ScriptPreludeTests {

	private static final String SCRIPTS = "classpath*:io/github/redislock/internal/*.lua";

	private static final String CLASSES = "classpath*:io/github/redislock/internal/*.class";

	// a reply code as the prelude names it: local NAME = -1
	private static final Pattern REPLY_CODE = Pattern.compile("(?m)^local ([A-Z_]+) = (-?\\d+)$");

	@Test
	void everyScriptTheLibraryLoadsBeginsWithThePrelude() throws Exception {
		Map<String, String> loaded = loadedScripts();
		assertThat(loaded).hasSizeGreaterThan(20);
		loaded.forEach((field, text) -> assertThat(text).as(field).startsWith(ScriptTexts.prelude()));
		// and every script of the folder is one of them, as ScriptTexts reads it
		List<String> texts = List.copyOf(loaded.values());
		for (Resource script : ownScripts()) {
			assertThat(texts).as(script.getFilename()).contains(ScriptTexts.text(script.getFilename()));
		}
	}

	@Test
	void aScriptsSha1CoversThePrelude() {
		RedisScript<Long> script = LockScripts.load("extend.lua", Long.class);
		String text = ScriptTexts.text("extend.lua");
		assertThat(script.getScriptAsString()).isEqualTo(text);
		assertThat(script.getSha1()).isEqualTo(new DefaultRedisScript<>(text, Long.class).getSha1());
	}

	@Test
	void noScriptRepeatsWhatThePreludeGives() throws IOException {
		List<String> repeated = new ArrayList<>();
		for (Resource script : ownScripts()) {
			String text = script.getContentAsString(StandardCharsets.UTF_8);
			for (String line : List.of("replicate_commands", "redis.call('time')", "time[1]", "'publish'",
					"'spublish'")) {
				if (text.contains(line)) {
					repeated.add(script.getFilename() + ": " + line);
				}
			}
			Matcher code = Pattern.compile("return -[12]\\b|local (NOT_HELD|NO_KEY)\\b").matcher(text);
			while (code.find()) {
				repeated.add(script.getFilename() + ": " + code.group());
			}
		}
		assertThat(repeated).as("lines the prelude gives every script").isEmpty();
	}

	@Test
	void thePreludeGivesTheGuardAndTheClockOnce() {
		String prelude = ScriptTexts.prelude();
		assertThat(count(prelude, "redis.replicate_commands()")).isOne();
		assertThat(count(prelude, "redis.call('time')")).isOne();
		// the clock is a function: a script that does not call it sends no TIME
		assertThat(prelude).contains("local function clock()");
	}

	@Test
	void thePreludesReplyCodesAreTheOnesJavaDecodes() {
		Map<String, Long> codes = new HashMap<>();
		Matcher code = REPLY_CODE.matcher(ScriptTexts.prelude());
		while (code.find()) {
			codes.put(code.group(1), Long.valueOf(code.group(2)));
		}
		assertThat(codes).containsOnly(Map.entry("NOT_HELD", LockReply.NOT_HELD_REPLY),
				Map.entry("NO_KEY", LockReads.NO_KEY));
		assertThat(LockReply.released(LockReply.NOT_HELD_REPLY)).isSameAs(LockReply.NOT_HELD);
	}

	// the text of every script a class of this package holds in a static field
	private static Map<String, String> loadedScripts() throws Exception {
		Map<String, String> scripts = new HashMap<>();
		for (Resource type : new PathMatchingResourcePatternResolver().getResources(CLASSES)) {
			String simpleName = type.getFilename().replace(".class", "");
			// not initialized unless it holds a script (reading the field initializes it)
			Class<?> loaded = Class.forName(LockScripts.class.getPackageName() + "." + simpleName, false,
					LockScripts.class.getClassLoader());
			for (Field field : loaded.getDeclaredFields()) {
				if (Modifier.isStatic(field.getModifiers()) && RedisScript.class.isAssignableFrom(field.getType())) {
					field.setAccessible(true);
					scripts.put(simpleName + "." + field.getName(),
							((RedisScript<?>) field.get(null)).getScriptAsString());
				}
			}
		}
		return scripts;
	}

	private static List<Resource> ownScripts() throws IOException {
		List<Resource> scripts = new ArrayList<>();
		for (Resource script : new PathMatchingResourcePatternResolver().getResources(SCRIPTS)) {
			if (!ScriptTexts.PRELUDE.equals(script.getFilename())) {
				scripts.add(script);
			}
		}
		assertThat(scripts).hasSizeGreaterThan(20);
		return scripts;
	}

	private static int count(String text, String part) {
		int found = 0;
		for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
			found++;
		}
		return found;
	}

}
