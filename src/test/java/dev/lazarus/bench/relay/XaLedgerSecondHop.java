package dev.lazarus.bench.relay;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;

/** The XA ledger relay's hop from {@value XaLedgerHop#SECOND} to {@value XaLedgerHop#THIRD} (see {@link XaLedgerHop}). */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = XaLedgerHop.SECOND),
        @ActivationConfigProperty(propertyName = "useJNDI", propertyValue = "false"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${lazarus.consumer.max-session:8}")})
public class XaLedgerSecondHop extends XaLedgerHop {

    @Override
    protected String nextQueue() {
        return THIRD;
    }
}
