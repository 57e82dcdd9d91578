#ifndef CSTRATAXML_SHIM_H
#define CSTRATAXML_SHIM_H

// libxml2, as StrataXML uses it: the SAX2 parser and xmlTextWriter.
//
// Debian's libxml2 is built with ICU, so its encoding.h includes the system's <unicode/ucnv.h>,
// whose declarations clash with the ICU copy inside swift-corelibs-foundation. Strata never
// touches xmlCharEncodingHandler (the only structure whose layout depends on ICU: it only passes
// NULL handlers), so the ICU part of the headers is switched off here.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlwriter.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlIO.h>

#endif
