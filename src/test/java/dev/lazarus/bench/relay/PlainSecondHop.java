package dev.lazarus.bench.relay;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;

/** The non-transacted relay's hop from {@value PlainHop#SECOND} to {@value PlainHop#THIRD} (see {@link PlainHop}). */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = PlainHop.SECOND),
        @ActivationConfigProperty(propertyName = "useJNDI", propertyValue = "false"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${lazarus.consumer.max-session:8}")})
public class PlainSecondHop extends PlainHop {

    @Override
    protected String nextQueue() {
        return THIRD;
    }
}
