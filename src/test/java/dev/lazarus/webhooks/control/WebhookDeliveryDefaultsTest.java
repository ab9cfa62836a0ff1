package dev.lazarus.webhooks.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The defaults the application ships for its own delivery pipeline, under the names the pipeline really has. */
class WebhookDeliveryDefaultsTest {

    @Test
    void theAutomaticHoldIsOffForThePostStepSoOneAbsentReceiverDoesNotStopTheOthersDeliveries() throws IOException {
        Properties shipped = new Properties();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/microprofile-config.properties")) {
            shipped.load(in);
        }
        assertEquals("false", shipped.getProperty("lazarus.hold." + WebhookDelivery.NAME + "." + WebhookDelivery.STEP + ".enabled"));
    }
}
