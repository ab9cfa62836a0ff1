package dev.lazarus.admin.boundary;

import jakarta.faces.component.UIViewParameter;
import jakarta.faces.context.FacesContext;

/**
 * A page's parameter ({@code <f:viewParam>}: a dead letter's id, a list's filter), read from the page's address when the
 * page is drawn and never again: on a postback (a button pressed on the page) it keeps the value the page was drawn
 * with, which the page's view state holds, whatever the request names. (faces-config.xml puts it in the place of the
 * standard view parameter, for every page.)
 *
 * <p>The standard one reads its parameter again from every postback, from the address or the posted form alike, and
 * the page bean gets that value and keeps it, as does every state of the view the session keeps. So a form posted
 * with {@code id=15} from the page of dead letter 16 acted on 15, and a viewer's postbacks carrying a "filter" of
 * nearly 1 MiB each made one session hold some 50 MB. Now what a page acts on, and what a session keeps of it, is what
 * its address said when it was drawn (at most the 16 KiB a request line and its headers may have); and a page bean
 * made anew for a postback (the session no longer kept the one that drew the page) learns the page's parameters from
 * the view's state, so the page can be drawn again as it was ({@link FacesActions#outOfDate}).
 */
public class PageParameter extends UIViewParameter {

    @Override
    public void decode(FacesContext context) {
        if (context.isPostback()) {
            setValid(true); // the submitted value stays the one the view's state holds: the value the page was drawn with
            // and the page bean learns it now, not at the end of the postback's model update: a bean made anew for the
            // postback (the session no longer kept the one that drew the page) decides which parts of the page exist
            // (a dead letter's actions, say) before that, and would otherwise find no id, skip the button pressed and
            // draw "no such dead letter"
            jakarta.el.ValueExpression target = getValueExpression("value");
            Object drawnWith = getSubmittedValue();
            if (target != null && drawnWith != null) {
                try {
                    target.setValue(context.getELContext(), getConvertedValue(context, drawnWith));
                } catch (jakarta.faces.convert.ConverterException | jakarta.el.ELException notForThisBean) {
                    // left to the model update, which reports it as Faces does
                }
            }
            return;
        }
        super.decode(context);
    }
}
