// SPDX-License-Identifier: MIT
// The code editor: QScintilla with the Python, Bash and JavaScript lexers, line numbers, folding,
// auto-indent and brace matching, in the system's fixed-width font and in colours that follow the palette;
// Tab indents, and Ctrl+Tab (or Escape, then Tab) moves on to the next control.
#pragma once

#include <Qsci/qsciscintilla.h>

#include <QStringList>

class QsciLexer;

namespace Cordon::Ui {

class CodeEditor final : public QsciScintilla
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CodeEditor)

public:
    explicit CodeEditor(QWidget *parent = nullptr);
    ~CodeEditor() override;

    // The daemon's language names: "python", "bash", "node".
    static QStringList languages();
    static QString languageTitle(const QString &language);

    QString language() const { return m_language; }
    void setLanguage(const QString &language);

    // How the keyboard leaves the editor, where Tab indents: said in its accessible description and docs.
    static QString leavingHint();

protected:
    void changeEvent(QEvent *event) override;
    // Ctrl+Tab and Ctrl+Shift+Tab, or Tab and Shift+Tab right after Escape, move the focus on (QScintilla
    // keeps every Tab for indenting).
    bool event(QEvent *event) override;

private:
    void applyFontAndColours();
    void updateMarginWidth();

    QString m_language;
    QsciLexer *m_lexer = nullptr;
    bool m_escaped = false; // the last key was Escape: the next Tab leaves
};

} // namespace Cordon::Ui
