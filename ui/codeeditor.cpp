// SPDX-License-Identifier: MIT
#include "codeeditor.h"

#include "appearance.h"

#include <Qsci/qscilexerbash.h>
#include <Qsci/qscilexerjavascript.h>
#include <Qsci/qscilexerpython.h>

#include <QEvent>
#include <QFontDatabase>
#include <QKeyEvent>

namespace Cordon::Ui {

namespace {

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightnessF() < 0.5;
}

// The lexers' built-in colours are chosen for a white page; on a dark one, the same hues are lifted so that
// keywords and strings stay readable.
QColor forPalette(const QColor &colour, const QPalette &palette)
{
    if (!isDark(palette))
        return colour;
    float h, s, l, a;
    colour.getHslF(&h, &s, &l, &a);
    return QColor::fromHslF(h, qMin(s, 0.7f), qMax(0.62f, 1.0f - l), a);
}

} // namespace

CodeEditor::CodeEditor(QWidget *parent) : QsciScintilla(parent)
{
    connect(Appearance::notifier(), &AppearanceNotifier::fontsChanged, this,
            &CodeEditor::applyFontAndColours);
    setUtf8(true);
    setAutoIndent(true);
    setIndentationsUseTabs(false);
    setIndentationWidth(4);
    setTabWidth(4);
    setIndentationGuides(true);
    setBraceMatching(SloppyBraceMatch);
    setFolding(BoxedTreeFoldStyle, 2);
    setMarginLineNumbers(0, true);
    setCaretLineVisible(true);
    setEolMode(EolUnix);
    setWrapMode(WrapNone);
    setScrollWidth(1);
    setScrollWidthTracking(true);
    setFrameShape(QFrame::NoFrame);
    setAccessibleName(tr("Code editor"));
    setAccessibleDescription(leavingHint());
    setWhatsThis(leavingHint());
    connect(this, &QsciScintilla::linesChanged, this, &CodeEditor::updateMarginWidth);
    setLanguage(QStringLiteral("python"));
}

CodeEditor::~CodeEditor() = default;

QStringList CodeEditor::languages()
{
    return {QStringLiteral("python"), QStringLiteral("bash"), QStringLiteral("node")};
}

QString CodeEditor::languageTitle(const QString &language)
{
    if (language == QLatin1String("python"))
        return tr("Python");
    if (language == QLatin1String("bash"))
        return tr("Bash");
    if (language == QLatin1String("node"))
        return tr("JavaScript (Node)");
    return language;
}

void CodeEditor::setLanguage(const QString &language)
{
    const QString chosen = languages().contains(language) ? language : QStringLiteral("python");
    if (chosen == m_language && m_lexer)
        return;
    m_language = chosen;
    QsciLexer *lexer = nullptr;
    if (chosen == QLatin1String("bash"))
        lexer = new QsciLexerBash(this);
    else if (chosen == QLatin1String("node"))
        lexer = new QsciLexerJavaScript(this);
    else
        lexer = new QsciLexerPython(this);
    setLexer(lexer);
    delete m_lexer;
    m_lexer = lexer;
    applyFontAndColours();
}

QString CodeEditor::leavingHint()
{
    return tr(
        "Tab indents the code; Ctrl+Tab (or Esc, then Tab) moves on to the next control, Ctrl+Shift+Tab "
        "back.");
}

bool CodeEditor::event(QEvent *event)
{
    if (event->type() != QEvent::KeyPress)
        return QsciScintilla::event(event);
    const auto *key = static_cast<QKeyEvent *>(event);
    const bool tab = key->key() == Qt::Key_Tab || key->key() == Qt::Key_Backtab;
    const bool control = key->modifiers() & Qt::ControlModifier;
    if (tab && (control || m_escaped)) {
        m_escaped = false;
        const bool back = key->key() == Qt::Key_Backtab || (key->modifiers() & Qt::ShiftModifier);
        // QScintilla's own focusNextPrevChild() refuses; the widget's moves along the focus chain.
        QWidget::focusNextPrevChild(!back);
        return true;
    }
    m_escaped = key->key() == Qt::Key_Escape && key->modifiers() == Qt::NoModifier;
    return QsciScintilla::event(event);
}

void CodeEditor::changeEvent(QEvent *event)
{
    QsciScintilla::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        applyFontAndColours();
}

void CodeEditor::applyFontAndColours()
{
    if (!m_lexer)
        return;
    const QFont font = Appearance::fixedFont();
    const QPalette pal = palette();
    const QColor paper = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    m_lexer->setDefaultFont(font);
    m_lexer->setDefaultPaper(paper);
    m_lexer->setDefaultColor(text);
    // Every style the lexer has (QScintilla's lexers number theirs below 128): one font, one page colour.
    for (int style = 0; style < 128; ++style) {
        if (m_lexer->description(style).isEmpty())
            continue;
        QFont styleFont = font;
        styleFont.setBold(m_lexer->font(style).bold());
        styleFont.setItalic(m_lexer->font(style).italic());
        m_lexer->setFont(styleFont, style);
        m_lexer->setPaper(paper, style);
        m_lexer->setColor(forPalette(m_lexer->defaultColor(style), pal), style);
    }
    setFont(font);
    setMarginsFont(font);
    setMarginsBackgroundColor(pal.color(QPalette::AlternateBase));
    setMarginsForegroundColor(pal.color(QPalette::Disabled, QPalette::Text));
    setFoldMarginColors(pal.color(QPalette::AlternateBase), pal.color(QPalette::AlternateBase));
    setCaretForegroundColor(text);
    QColor caretLine = pal.color(QPalette::Highlight);
    caretLine.setAlpha(isDark(pal) ? 40 : 22);
    // QScintilla draws the caret line opaque: blend it with the page by hand.
    const QColor blended =
        QColor::fromRgbF(paper.redF() + (caretLine.redF() - paper.redF()) * caretLine.alphaF(),
                         paper.greenF() + (caretLine.greenF() - paper.greenF()) * caretLine.alphaF(),
                         paper.blueF() + (caretLine.blueF() - paper.blueF()) * caretLine.alphaF());
    setCaretLineBackgroundColor(blended);
    setMatchedBraceBackgroundColor(pal.color(QPalette::Highlight).lighter(isDark(pal) ? 80 : 160));
    setMatchedBraceForegroundColor(text);
    setSelectionBackgroundColor(pal.color(QPalette::Highlight));
    setSelectionForegroundColor(pal.color(QPalette::HighlightedText));
    setIndentationGuidesForegroundColor(pal.color(QPalette::Midlight));
    updateMarginWidth();
}

void CodeEditor::updateMarginWidth()
{
    // Room for the digits of the last line plus one, so the margin does not jump at 10, 100, ...
    setMarginWidth(0, QStringLiteral("00%1").arg(lines()));
}

} // namespace Cordon::Ui
