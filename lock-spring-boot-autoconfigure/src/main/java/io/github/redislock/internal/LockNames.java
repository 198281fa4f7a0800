package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

import org.jspecify.annotations.Nullable;

/**
 * The one place that says what a lock name and a key prefix may be; every entry point
 * (the client, the annotation's start-up checks and key evaluation, the properties) asks
 * here and puts the answer in its own context. Not API.
 */
public final class LockNames {

	/**
	 * Longest accepted lock name; longer ones are almost always a whole object rendered
	 * into a key by mistake.
	 */
	public static final int MAX_LENGTH = 1024;

	private LockNames() {
	}

	/**
	 * What is wrong with a lock name given to the client, worded to follow its subject
	 * ("Lock name ' ' must not be blank"), or {@code null} when it is fine. Any other
	 * name works: one with braces or over {@link #MAX_LENGTH} characters gets a hashed
	 * {@link #hashTag(String) hash tag} in its keys, and is shown as it is everywhere
	 * else (ShedLock and Spring Integration users have such names).
	 */
	@Nullable public static String clientProblem(String name) {
		return name.isBlank() ? "must not be blank" : null;
	}

	/**
	 * What the annotation refuses in a lock name, worded as {@link #clientProblem}: also
	 * braces (a key part's are escaped before) and more than {@link #MAX_LENGTH}
	 * characters, which from an expression is almost always a whole object rendered by
	 * mistake.
	 */
	@Nullable public static String problem(String name) {
		if (name.isBlank()) {
			return "must not be blank";
		}
		if (name.length() > MAX_LENGTH) {
			return "must be at most " + MAX_LENGTH + " characters, was " + name.length();
		}
		return braces(name, "the client wraps the name in a Redis Cluster hash tag");
	}

	/** What is wrong with a key prefix, as {@link #problem(String)} words it. */
	@Nullable public static String keyPrefixProblem(String keyPrefix) {
		if (keyPrefix.isBlank()) {
			return "must not be blank";
		}
		return braces(keyPrefix, "the lock name follows it in a Redis Cluster hash tag");
	}

	/**
	 * A key part evaluated from a method's arguments, with {@code '{'} and {@code '}'}
	 * written as {@code %7B} and {@code %7D}, so that user input such as a JSON fragment
	 * can be locked. Deterministic, so one value always maps to one lock; it can only
	 * make two values share a lock (a part that already contained {@code %7B}), never
	 * split one over two.
	 */
	public static String escapeBraces(String part) {
		if (part.indexOf('{') < 0 && part.indexOf('}') < 0) {
			return part;
		}
		return part.replace("{", "%7B").replace("}", "%7D");
	}

	/**
	 * What a lock's keys wrap in braces, their Redis Cluster hash tag: the name itself,
	 * or, for a name with a brace (which would end or empty the tag) or over
	 * {@link #MAX_LENGTH} characters, {@code '{'} and the name's SHA-256 in base64url.
	 * Every key of a name has the same tag, so they share a slot; no name without braces
	 * makes a tag starting with {@code '{'}, so a hashed tag meets no plain one.
	 */
	public static String hashTag(String name) {
		if (name.length() <= MAX_LENGTH && name.indexOf('{') < 0 && name.indexOf('}') < 0) {
			return name;
		}
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
			return "{" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform has SHA-256", ex);
		}
	}

	/** Quotes a name for a message, cut short when it is very long. */
	public static String quote(String name) {
		return "'" + ((name.length() > 60) ? name.substring(0, 60) + "...'" : name + "'");
	}

	@Nullable private static String braces(String text, String why) {
		return (text.indexOf('{') >= 0 || text.indexOf('}') >= 0) ? "must not contain '{' or '}': " + why : null;
	}

}
