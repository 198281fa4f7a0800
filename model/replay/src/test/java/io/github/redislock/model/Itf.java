package io.github.redislock.model;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Values of the Informal Trace Format ({@code quint --out-itf}) as Java values, and the
 * conversions the kinds' trace readers share.
 */
final class Itf {

	private Itf() {
	}

	/**
	 * An ITF value as plain Java: {@code {"#bigint": "n"}} a Long, {@code {"#set":
	 * [...]}} a Set, {@code {"#map": [[k, v], ...]}} a Map, {@code {"#tup": [...]}} and
	 * arrays a List, records and variants ({@code {"tag": ..., "value": ...}}) a Map by
	 * field.
	 */
	static Object decode(JsonNode node) {
		if (node.isObject()) {
			if (node.has("#bigint")) {
				return Long.parseLong(node.get("#bigint").asText());
			}
			if (node.has("#set")) {
				Set<Object> set = new LinkedHashSet<>();
				node.get("#set").forEach((element) -> set.add(decode(element)));
				return set;
			}
			if (node.has("#map")) {
				Map<Object, Object> map = new LinkedHashMap<>();
				node.get("#map").forEach((entry) -> map.put(decode(entry.get(0)), decode(entry.get(1))));
				return map;
			}
			if (node.has("#tup")) {
				return decode(node.get("#tup"));
			}
			Map<String, Object> record = new LinkedHashMap<>();
			for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext();) {
				Map.Entry<String, JsonNode> field = fields.next();
				if (!field.getKey().equals("#meta")) {
					record.put(field.getKey(), decode(field.getValue()));
				}
			}
			return record;
		}
		if (node.isArray()) {
			List<Object> list = new ArrayList<>();
			node.forEach((element) -> list.add(decode(element)));
			return list;
		}
		if (node.isBoolean()) {
			return node.booleanValue();
		}
		if (node.isNumber()) {
			return node.longValue();
		}
		return node.asText();
	}

	@SuppressWarnings("unchecked")
	static Map<String, Object> record(Object value) {
		return (Map<String, Object>) value;
	}

	@SuppressWarnings("unchecked")
	static Map<Object, Object> map(Object value) {
		return (Map<Object, Object>) value;
	}

	static long number(Object value) {
		return ((Number) value).longValue();
	}

	/** A map to numbers without its zeros (0 stands for "absent" in the models). */
	static Map<String, Long> positive(Object value) {
		Map<String, Long> result = new LinkedHashMap<>();
		map(value).forEach((key, number) -> {
			if (number(number) > 0) {
				result.put(key.toString(), number(number));
			}
		});
		return result;
	}

	static List<String> strings(Object value) {
		return ((List<?>) value).stream().map(Object::toString).toList();
	}

	static Set<String> stringSet(Object value) {
		Set<String> result = new LinkedHashSet<>();
		((Set<?>) value).forEach((element) -> result.add(element.toString()));
		return result;
	}

	/** The action quint's --mbt metadata names, "" when the state has none. */
	static String actionTaken(Map<String, Object> vars) {
		Object action = vars.get("mbt::actionTaken");
		return (action != null) ? action.toString() : "";
	}

}
