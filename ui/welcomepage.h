// SPDX-License-Identifier: MIT
// What a first start shows in place of the editor: what Cordon is for, one button that creates a demo
// container and fills the editor with a first program, and one for a container of the user's own.
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;

namespace Cordon::Ui {

class WelcomePage final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WelcomePage)

public:
    explicit WelcomePage(QWidget *parent = nullptr);

    QPushButton *demoButton() const { return m_demo; }
    // The buttons work only while cordond is connected.
    void setConnected(bool connected);
    // While the demo container is being created.
    void setBusy(bool busy);
    void setError(const QString &text);

Q_SIGNALS:
    void demoRequested();
    void newContainerRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    // The wrapped text's height at its fixed width, for the current font: a layout item with an alignment
    // does not ask for it by itself, and presentation mode's larger font cut the last lines.
    void fitBody();

    QLabel *m_body = nullptr;
    QPushButton *m_demo;
    QPushButton *m_custom;
    QLabel *m_status;
    bool m_connected = false;
    bool m_busy = false;
};

} // namespace Cordon::Ui
