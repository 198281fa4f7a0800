package io.github.redislock.sample.demo;

import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Runs the oversell demo over HTTP. It answers with a table for people
 * ({@code text/plain}) unless the request asks for {@code application/json} by name: then
 * with the numbers. A plain {@code curl -X POST} gets the table.
 */
@RestController
@RequestMapping("/demo")
public class DemoController {

	private final OversellDemo demo;

	DemoController(OversellDemo demo) {
		this.demo = demo;
	}

	@PostMapping("/oversell")
	ResponseEntity<Object> oversell(@RequestParam(defaultValue = "20") int stock,
			@RequestParam(defaultValue = "200") int requests, @RequestParam(defaultValue = "16") int concurrency,
			@RequestHeader(name = HttpHeaders.ACCEPT, defaultValue = MediaType.ALL_VALUE) List<MediaType> accept) {
		DemoReport report = this.demo.run(stock, requests, concurrency);
		if (accept.stream().anyMatch(MediaType.APPLICATION_JSON::equalsTypeAndSubtype)) {
			return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(report);
		}
		return ResponseEntity.ok().contentType(MediaType.TEXT_PLAIN).body(report.table());
	}

}
